package convert

import (
	"container/list"
	"sync"
)

// memoEntryOverhead approximates what one entry costs beyond its two
// strings (list element, map slot, headers), so that many tiny entries are
// bounded too.
const memoEntryOverhead = 128

// memo is a size-bounded least-recently-used map from statement to
// Markdown. Its methods are safe for concurrent use, and a nil *memo is a
// memo that keeps nothing.
type memo struct {
	mu      sync.Mutex
	max     int // bytes
	used    int
	entries map[string]*list.Element
	order   *list.List // front: most recently used; values are *memoEntry
	hits    uint64
	misses  uint64
}

type memoEntry struct {
	key, val string
}

// size is what the entry counts against the memo's budget.
func (e *memoEntry) size() int { return len(e.key) + len(e.val) + memoEntryOverhead }

func newMemo(maxBytes int) *memo {
	return &memo{max: maxBytes, entries: map[string]*list.Element{}, order: list.New()}
}

func (m *memo) get(key string) (string, bool) {
	if m == nil {
		return "", false
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	e, ok := m.entries[key]
	if !ok {
		m.misses++
		return "", false
	}
	m.hits++
	m.order.MoveToFront(e)
	return e.Value.(*memoEntry).val, true
}

func (m *memo) put(key, val string) {
	if m == nil || len(key) > m.max/8 { // a statement over an eighth of the budget is never kept
		return
	}
	e := &memoEntry{key: key, val: val}
	size := e.size()
	if size > m.max {
		return
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if _, ok := m.entries[key]; ok {
		return // a concurrent caller converted it too; the value is the same
	}
	for m.used+size > m.max {
		oldest := m.order.Back()
		old := m.order.Remove(oldest).(*memoEntry)
		delete(m.entries, old.key)
		m.used -= old.size()
	}
	m.entries[key] = m.order.PushFront(e)
	m.used += size
}
