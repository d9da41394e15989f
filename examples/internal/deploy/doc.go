// Package deploy holds what examples/signup and examples/mcpgo share to
// run as a server rather than as a lesson: the request-state keys from the
// environment, and a private SQLite file. Each example keeps its own
// tools, store and transport, the parts a reader compares.
package deploy
