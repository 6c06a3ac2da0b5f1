package tests

// testBusSecret is TANDEM_BUS_SECRET of every test deployment (the harness).
const testBusSecret = "test-bus-secret-0123456789abcdef"
