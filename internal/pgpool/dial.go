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
	// connection is probed after 15 s and dropped after 3 probes 5 s apart
	// go unanswered, about 30 s in all (Go's defaults, 15 s apart and 9
	// of them, take 2.5 minutes).
	keepAliveIdle     = 15 * time.Second
	keepAliveInterval = 5 * time.Second
	keepAliveCount    = 3
	// userTimeout aborts a connection whose sent bytes stay unacknowledged
	// this long (Linux's TCP_USER_TIMEOUT), so a statement sent into a
	// dead network fails after a minute instead of after the kernel's
	// retransmissions give up (about 15 minutes). A live server
	// acknowledges what it is sent even while it works on a long
	// statement, so this never cuts a slow statement short.
	userTimeout = time.Minute
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
