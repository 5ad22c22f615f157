package server

import (
	"io"
	"net"
	"time"
)

// notificationLinger bounds how long a connection ended by a NOTIFICATION stays
// open, after this side has closed it, for the peer to read the NOTIFICATION and
// close its own side. A variable so that tests can shorten it.
var notificationLinger = 5 * time.Second

// closeAfterNotification closes conn, on which a NOTIFICATION has just been
// written, so that the peer reads the NOTIFICATION before it sees the connection
// end (kbgp patch "notification before the close").
//
// A peer that is still sending when the NOTIFICATION goes out (one that exceeded
// the prefix limit, say) leaves data unread here, and closing a socket with unread
// data makes the kernel reset the connection. The peer's next write then fails,
// and a peer that handles that failure before it reads what came in (as FRR
// seems to) ends the session as a reset and never learns why. Instead the socket is
// half-closed, so that a FIN follows the NOTIFICATION, and conn is closed as
// before, which stops this side's reader; a duplicate of the socket reads and
// discards what the peer still sends until the peer closes its side or
// notificationLinger passes, and only then is the socket released.
func closeAfterNotification(conn net.Conn) {
	tcp, ok := conn.(*net.TCPConn)
	if !ok {
		conn.Close()
		return
	}
	dup, err := tcp.File()
	if err != nil {
		conn.Close()
		return
	}
	_ = tcp.CloseWrite()
	conn.Close()
	if dup.SetReadDeadline(time.Now().Add(notificationLinger)) != nil {
		dup.Close()
		return
	}
	go func() {
		_, _ = io.Copy(io.Discard, dup)
		dup.Close()
	}()
}
