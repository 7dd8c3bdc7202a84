// Package eviction reads the API server's answers to an Eviction (policy/v1,
// POST pods/NAME/eviction) in one place, for `drain node` and `watch pod
// --evict`: which answers mean "a PodDisruptionBudget refuses, retry later",
// which mean "this will never succeed", the cause to show a person, and the
// wait the server asks for. It also holds the timeout error both commands
// return when --timeout ends them.
//
// The answers are those of the eviction subresource
// (pkg/registry/core/pod/storage/eviction.go in kubernetes), of the
// NamespaceLifecycle admission plugin, and of client-go, which turns a
// response without a Status body (a throttling 429 with a Retry-After
// header) into a StatusError itself. answer_test.go holds each body as the
// API server sends it.
//
// What it offers other programs: Read (an error to an Answer, its Kind a
// stable kebab-case value), Transient and Credentials (which failures a
// retry may cure), and the --timeout error (WithTimeout, TimeoutError). What pkg/
// offers as a whole is stated once in ARCHITECTURE.md ("Layout").
package eviction
