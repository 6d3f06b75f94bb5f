// Package topicglob matches notification topics against the glob patterns
// of a host configuration's notify.topics, the way Python's fnmatch does
// on a POSIX system (and so the way the ot pack's reference system
// routes them): * matches any run of characters and ? any one character,
// '/' included, [set] and [^set] a character of a set or not, and \ quotes
// the character after it. A topic is a name, not a path: "notes*" routes
// "notes", "notes:work" and "notes/2026/11" alike.
package topicglob

import (
	"path"
	"strings"
)

// slash stands for '/' while path.Match reads a pattern and a topic: it
// has no special meaning there, so '*' and '?' match it. Topics and
// patterns are text a person writes, which never holds it.
const slash = "\x00"

// Match reports whether topic matches pattern. A malformed pattern is
// path.ErrBadPattern, whatever the topic.
func Match(pattern, topic string) (bool, error) {
	if strings.Contains(pattern, slash) || strings.Contains(topic, slash) {
		// Neither comes from a configuration or a caller that writes a NUL;
		// read such text with path.Match's own rules rather than mix the
		// two meanings of the stand-in.
		return path.Match(pattern, topic)
	}
	return path.Match(strings.ReplaceAll(pattern, "/", slash), strings.ReplaceAll(topic, "/", slash))
}

// Valid reports whether pattern is a well-formed glob.
func Valid(pattern string) bool {
	_, err := Match(pattern, "")
	return err == nil
}
