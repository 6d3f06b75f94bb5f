package pgpool

import (
	"context"
	"net"
	"strings"
	"syscall"
	"time"
)

// How a connection to the database finds out that the network under it is
// gone when the server cannot say so (no FIN, no RST: a failover moving
// the address, a NAT or firewall forgetting the connection).
const (
	// keepAliveIdle, keepAliveInterval and keepAliveCount: an idle
	// connection is probed after 15 s, then every 5 s, and dropped when 3
	// probes go unanswered: 30 s in all (Go's defaults, 15 s apart and 9
	// of them, take 2.5 minutes).
	keepAliveIdle     = 15 * time.Second
	keepAliveInterval = 5 * time.Second
	keepAliveCount    = 3
	// userTimeout aborts a connection whose sent bytes stay unacknowledged
	// this long (Linux's TCP_USER_TIMEOUT), so a statement sent into a
	// dead network fails after half a minute instead of after the
	// kernel's retransmissions give up (about 15 minutes). A live server
	// acknowledges what it is sent even while it works on a long
	// statement, so this never cuts a slow statement short.
	//
	// Once it is set, Linux also uses it in place of keepAliveCount: an
	// idle connection is dropped when its probes have gone unanswered for
	// userTimeout since the last byte received. It is therefore the
	// probes' own total, so idle and mid-statement connections are both
	// given up after 30 s (a minute here made the idle case a minute too).
	userTimeout = keepAliveIdle + keepAliveCount*keepAliveInterval
)

// dial is the pools' DialFunc: pgx's own dialing (it adds TLS and the
// connect timeout around it), with the keep-alive probes and user timeout
// above on TCP connections.
func dial(ctx context.Context, network, addr string) (net.Conn, error) {
	d := net.Dialer{
		KeepAliveConfig: net.KeepAliveConfig{Enable: true, Idle: keepAliveIdle, Interval: keepAliveInterval, Count: keepAliveCount},
		Control: func(network, _ string, c syscall.RawConn) error {
			if !strings.HasPrefix(network, "tcp") {
				return nil // a Unix socket: nothing in between to lose
			}
			return setUserTimeout(c, userTimeout)
		},
	}
	return d.DialContext(ctx, network, addr)
}
