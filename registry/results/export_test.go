package results

// ReferenceLines is referenceLines, for the tests of package results_test.
var ReferenceLines = referenceLines
