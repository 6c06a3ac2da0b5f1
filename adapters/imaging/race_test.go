//go:build race

package imaging_test

// raceDetector: under -race, decoding 48 megapixels takes about a minute.
const raceDetector = true
