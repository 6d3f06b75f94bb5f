//go:build !race

package schematype

const raceEnabled = false
