package toolmsg

import (
	"errors"
	"fmt"
)

// ErrServerStopping is the cause a server gives the calls it stops at the
// end of its shutdown grace. adapters/httpapi and adapters/mcpserver
// export it under their own names (both ErrServerStopping, the same
// error), so that one cancellation stops REST and MCP calls alike and
// each adapter recognises it.
var ErrServerStopping = errors.New("the server is shutting down")

// ServerStopping is what the client of a call stopped by a server
// shutting down reads, over REST (the 503's error) and MCP (the tool
// error result's text) alike.
func ServerStopping(tool string) string {
	return fmt.Sprintf("the server is shutting down and stopped the call to tool %q before it finished", tool)
}
