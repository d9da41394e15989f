// Package deploy holds what examples/signup and examples/mcpgo share to
// run as a server rather than as a lesson: the request-state keys from the
// environment, and a private SQLite file. The tools' questions, flows,
// store and outcomes are package accounts'; each example keeps its SDK's
// face and transport, the parts a reader compares.
package deploy
