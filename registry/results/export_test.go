package results

import "context"

// ReferenceLines is referenceLines, for the tests of package results_test.
var ReferenceLines = referenceLines

// SetScanHook makes every search of s call h with its context and each
// line's number before matching the line: tests count the lines a search
// visits, and end its context at a line they choose.
func SetScanHook(s *Store, h func(ctx context.Context, line int64)) { s.scanHook = h }
