package timeline

// SortedEvents returns tl's events in the order they were received (stable
// for events received at the same instant), the order every renderer and
// the verdict read them in.
func SortedEvents(tl *Timeline) []Event { return sortedEvents(tl) }
