package mcpgo

// LegacyPagePoll lets the tests shorten the wait between runs of a flow
// whose page a legacy client's person consented to.
var LegacyPagePoll = &legacyPagePoll
