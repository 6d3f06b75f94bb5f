package catalogueapi

import (
	"bytes"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/google/uuid"
)

// MaxPageTokenBytes caps a page token; longer tokens are refused unread.
const MaxPageTokenBytes = 1024

// cursor is the content of a page token: where the previous page ended,
// which listing it belongs to and a digest of the listing's filters, so
// that a token replayed against another route or other filters is
// refused. The page size is not part of it: a client may change it
// between pages.
type cursor struct {
	// Kind is the listing: "bundles", "tools" or "search".
	Kind string `json:"k"`
	// Filter is the hex SHA-256 of the listing's canonical filters.
	Filter string `json:"f"`
	// BundleID, Slug and Version are the last item of the previous page.
	BundleID uuid.UUID `json:"b"`
	Slug     string    `json:"s,omitempty"`
	Version  string    `json:"v,omitempty"`
	// Score and Time (Unix nanoseconds of modifiedAt) place the last item
	// of a search page in the ranked order.
	Score int   `json:"r,omitempty"`
	Time  int64 `json:"t,omitempty"`
}

var errBadToken = errors.New("expected a pageToken returned by this API for the same route and filters")

// filterDigest returns the digest of a listing's canonical filters; parts
// are length-prefixed so that no two filter sets share an encoding.
func filterDigest(parts ...string) string {
	var b strings.Builder
	for _, p := range parts {
		fmt.Fprintf(&b, "%d:%s;", len(p), p)
	}
	sum := sha256.Sum256([]byte(b.String()))
	return fmt.Sprintf("%x", sum[:])
}

func (h *Handler) mac(payload []byte) []byte {
	m := hmac.New(sha256.New, h.key)
	m.Write([]byte("catalogueapi page token v1\x00"))
	m.Write(payload)
	return m.Sum(nil)
}

// encodeToken signs and encodes a cursor.
func (h *Handler) encodeToken(c cursor) string {
	payload, err := json.Marshal(c)
	if err != nil { // a cursor is plain data; this cannot happen
		panic(fmt.Sprintf("catalogueapi: encode page token: %v", err))
	}
	return base64.RawURLEncoding.EncodeToString(append(payload, h.mac(payload)...))
}

// decodeToken checks a token's signature, its route and its filters.
func (h *Handler) decodeToken(tok, kind, filter string) (cursor, error) {
	if len(tok) > MaxPageTokenBytes {
		return cursor{}, fmt.Errorf("%w (at most %d bytes)", errBadToken, MaxPageTokenBytes)
	}
	raw, err := base64.RawURLEncoding.DecodeString(tok)
	if err != nil || len(raw) <= sha256.Size {
		return cursor{}, errBadToken
	}
	payload, sig := raw[:len(raw)-sha256.Size], raw[len(raw)-sha256.Size:]
	if !hmac.Equal(sig, h.mac(payload)) {
		return cursor{}, errBadToken
	}
	var c cursor
	dec := json.NewDecoder(bytes.NewReader(payload))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&c); err != nil {
		return cursor{}, errBadToken
	}
	if c.Kind != kind || c.Filter != filter {
		return cursor{}, fmt.Errorf("%w: the token belongs to another listing or other filters; repeat the query without pageToken", errBadToken)
	}
	return c, nil
}
