//! The one-shot AEAD calls of drivers whose kernels take a source and a destination:
//! `seal`, `open`, `seal_to` and `open_to` written once over the driver's own
//! `seal_into` / `open_into` ([`one_shot_methods`]), and the check that the two buffers of
//! an out-of-place call have one length ([`one_shot_pair`]). Safe code, shared by the
//! architectures.

/// The two buffers of an out-of-place one-shot AEAD call (`seal_to` / `open_to`), which
/// must be of one length: [`Error::LengthMismatch`](cryptoreg_registry::Error) otherwise,
/// before anything is written.
pub(crate) fn one_shot_pair<'a>(
    src: &'a [u8],
    dst: &'a mut [u8],
) -> cryptoreg_registry::Result<cryptoreg_registry::InOut<'a>> {
    let (s, d) = (src.len(), dst.len());
    // `let ... else`, not `ok_or`: that built the error, and dropped it out of line, every
    // call.
    let Some(io) = cryptoreg_registry::InOut::split(src, dst) else {
        return Err(cryptoreg_registry::Error::LengthMismatch { src: s, dst: d });
    };
    Ok(io)
}

/// The one-shot methods of an [`AeadImpl`](cryptoreg_registry::AeadImpl) whose one-shot
/// kernel reads one buffer and writes another (possibly the same; the x86-64 and arm64
/// GCM drivers, x86-64 ChaCha20-Poly1305): `seal`, `open`, `seal_to` and `open_to`, all
/// through the driver's own inherent
/// `seal_into(&self, nonce, aad, InOut, &mut [u8]) -> Result<()>` and
/// `open_into(&self, nonce, aad, InOut, &[u8]) -> Result<()>` — in place as
/// `InOut::InPlace`, out of place as [`one_shot_pair`] (buffers of one length, else
/// `LengthMismatch` with nothing written). Used inside the `impl AeadImpl` block.
macro_rules! one_shot_methods {
    () => {
        fn seal(
            &self,
            nonce: &[u8],
            aad: &[u8],
            data: &mut [u8],
            tag: &mut [u8],
        ) -> cryptoreg_registry::Result<()> {
            self.seal_into(nonce, aad, cryptoreg_registry::InOut::InPlace(data), tag)
        }

        fn open(
            &self,
            nonce: &[u8],
            aad: &[u8],
            data: &mut [u8],
            tag: &[u8],
        ) -> cryptoreg_registry::Result<()> {
            self.open_into(nonce, aad, cryptoreg_registry::InOut::InPlace(data), tag)
        }

        fn has_one_shot_to(&self) -> bool {
            true
        }

        fn seal_to(
            &self,
            nonce: &[u8],
            aad: &[u8],
            src: &[u8],
            dst: &mut [u8],
            tag: &mut [u8],
        ) -> cryptoreg_registry::Result<()> {
            let io = $crate::aead::one_shot::one_shot_pair(src, dst)?;
            self.seal_into(nonce, aad, io, tag)
        }

        fn open_to(
            &self,
            nonce: &[u8],
            aad: &[u8],
            src: &[u8],
            dst: &mut [u8],
            tag: &[u8],
        ) -> cryptoreg_registry::Result<()> {
            let io = $crate::aead::one_shot::one_shot_pair(src, dst)?;
            self.open_into(nonce, aad, io, tag)
        }
    };
}
pub(crate) use one_shot_methods;
