/// A self-signed certificate for 127.0.0.1 and localhost (EC P-256, valid until 2126), made with
/// `openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -days 36500
/// -subj /CN=127.0.0.1 -addext subjectAltName=IP:127.0.0.1,DNS:localhost`. Test use only: no
/// client trusts it, which is what the TLS tests need.
enum TestServerCertificate {
    static let certificatePEM = """
    -----BEGIN CERTIFICATE-----
    MIIBmjCCAUGgAwIBAgIUftZedRoDHsE+xcQiATIUt4fOdHcwCgYIKoZIzj0EAwIw
    FDESMBAGA1UEAwwJMTI3LjAuMC4xMCAXDTI2MTEyNDAzNTQxMFoYDzIxMjYxMDMx
    MDM1NDEwWjAUMRIwEAYDVQQDDAkxMjcuMC4wLjEwWTATBgcqhkjOPQIBBggqhkjO
    PQMBBwNCAATYl4cgHeB0qTDK0SfUTmavcETDEEYXLYHjFmKKF/swFzxVbsNEHmZf
    hPOw9gkx0DhTvABApE8tIdCIwLYenAqvo28wbTAdBgNVHQ4EFgQUOmq/p0UEB+Ej
    wIi+RiBournl1UEwHwYDVR0jBBgwFoAUOmq/p0UEB+EjwIi+RiBournl1UEwDwYD
    VR0TAQH/BAUwAwEB/zAaBgNVHREEEzARhwR/AAABgglsb2NhbGhvc3QwCgYIKoZI
    zj0EAwIDRwAwRAIgap8+OshwV7TxfHhp4tnZVZ9zB58x65idbKqQg6EXfxECIC/S
    8bbnjLsNiYtO0Gfm0gL2F9k7pTQBTsb6YHsPJNok
    -----END CERTIFICATE-----
    """

    static let privateKeyPEM = """
    -----BEGIN PRIVATE KEY-----
    MIGHAgEAMBMGByqGSM49AgEGCCqGSM49AwEHBG0wawIBAQQgqXelb9hD7K10uq/r
    xh+IH3ZeRwQSnLMuzEToPM9SwI6hRANCAATYl4cgHeB0qTDK0SfUTmavcETDEEYX
    LYHjFmKKF/swFzxVbsNEHmZfhPOw9gkx0DhTvABApE8tIdCIwLYenAqv
    -----END PRIVATE KEY-----
    """
}
