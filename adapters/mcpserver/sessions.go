package mcpserver

import (
	"context"
	"errors"
	"sync"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// ErrSessionEnded is the cause (context.Cause) of the context of a call
// whose client ended its MCP session — an HTTP DELETE of the session —
// while the call was running. The registry's Logging logs such a call as
// "Tool X stopped: the client ended its MCP session", at INFO: nothing for
// an operator to act on.
var ErrSessionEnded = errors.New("the client ended its MCP session")

// liveCalls are the calls of registry tools running now, by session, so
// that a session's end (DELETE) can stop its calls: the SDK closes a
// session only once its calls have returned, and cancels none of them.
// An entry lives as long as its call, so the set holds nothing for a
// session without calls.
var liveCalls = struct {
	mu sync.Mutex
	m  map[*sdk.ServerSession]*sessionCalls
}{m: map[*sdk.ServerSession]*sessionCalls{}}

// sessionCalls are one session's running calls.
type sessionCalls struct {
	calls  map[*liveCall]struct{}
	ending map[string]int // users of the DELETEs under way: their calls arriving meanwhile are stopped at once
}

// ends reports whether a DELETE under way stops c: one by c's user, or
// any when c has none.
func (sc *sessionCalls) ends(c *liveCall) bool {
	if c.user == "" {
		return len(sc.ending) > 0
	}
	return sc.ending[c.user] > 0
}

// sessionCallsOf returns the entry of ss, made if need be; liveCalls.mu
// must be held.
func sessionCallsOf(ss *sdk.ServerSession) *sessionCalls {
	sc := liveCalls.m[ss]
	if sc == nil {
		sc = &sessionCalls{calls: map[*liveCall]struct{}{}, ending: map[string]int{}}
		liveCalls.m[ss] = sc
	}
	return sc
}

// dropIfIdleLocked forgets sc once it has neither calls nor DELETEs;
// liveCalls.mu must be held.
func dropIfIdleLocked(ss *sdk.ServerSession, sc *sessionCalls) {
	if len(sc.calls) == 0 && len(sc.ending) == 0 {
		delete(liveCalls.m, ss)
	}
}

// liveCall is one running call: its cancel, and the user its request was
// authenticated as ("" without authentication).
type liveCall struct {
	cancel context.CancelCauseFunc
	user   string
}

// callUser is the user a call's request was authenticated as, the user
// the SDK binds its session to; "" without authentication.
func callUser(req *sdk.CallToolRequest) string {
	if req == nil || req.Extra == nil || req.Extra.TokenInfo == nil {
		return ""
	}
	return req.Extra.TokenInfo.UserID
}

// trackCall returns ctx cancelled with ErrSessionEnded when the client
// of req's session ends it, and the func that releases it once the call
// has returned. Without a session it returns ctx itself.
func trackCall(ctx context.Context, req *sdk.CallToolRequest) (context.Context, func()) {
	if req == nil || req.Session == nil {
		return ctx, func() {}
	}
	ss := req.Session
	cctx, cancel := context.WithCancelCause(ctx)
	c := &liveCall{cancel: cancel, user: callUser(req)}
	liveCalls.mu.Lock()
	sc := sessionCallsOf(ss)
	sc.calls[c] = struct{}{}
	ending := sc.ends(c)
	liveCalls.mu.Unlock()
	if ending {
		cancel(ErrSessionEnded)
	}
	return cctx, func() {
		liveCalls.mu.Lock()
		delete(sc.calls, c)
		dropIfIdleLocked(ss, sc)
		liveCalls.mu.Unlock()
		cancel(nil)
	}
}

// endSession stops the running calls of ss that user may end — all of
// them when their session has no user, those of user otherwise, as the
// SDK lets only the session's user end it — with the cause
// ErrSessionEnded, and keeps stopping calls of ss that arrive until the
// returned func is called (once the SDK has closed the session). It
// reports how many calls it stopped.
func endSession(ss *sdk.ServerSession, user string) (stopped int, done func()) {
	liveCalls.mu.Lock()
	sc := sessionCallsOf(ss)
	var cancels []context.CancelCauseFunc
	for c := range sc.calls {
		if c.user == "" || c.user == user {
			cancels = append(cancels, c.cancel)
		}
	}
	sc.ending[user]++
	liveCalls.mu.Unlock()
	for _, cancel := range cancels {
		cancel(ErrSessionEnded)
	}
	return len(cancels), func() {
		liveCalls.mu.Lock()
		if sc.ending[user]--; sc.ending[user] == 0 {
			delete(sc.ending, user)
		}
		dropIfIdleLocked(ss, sc)
		liveCalls.mu.Unlock()
	}
}
