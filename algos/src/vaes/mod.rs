//! VAES + VPCLMULQDQ drivers for XTS and CTR at three vector widths from one generic core.
