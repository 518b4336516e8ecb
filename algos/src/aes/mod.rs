//! AES: the block cipher (generic constant-time and AES-NI) and the AES-NI mode drivers.
