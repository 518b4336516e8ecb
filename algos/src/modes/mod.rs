//! Templates: ecb, cbc, ctr and xts over any cipher (or, for xts, any ECB skcipher).
