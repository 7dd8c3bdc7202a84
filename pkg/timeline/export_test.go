package timeline

// Test helpers of this package, exported to the tests of the renderers
// (package timeline_test), which read timelines built the same way.
var (
	At        = at
	Terminate = terminate
)
