package appstore

// AppleRootPEM exposes the embedded root to the fingerprint test.
var AppleRootPEM = appleRootPEM
