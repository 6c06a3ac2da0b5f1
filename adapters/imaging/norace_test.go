//go:build !race

package imaging_test

const raceDetector = false
