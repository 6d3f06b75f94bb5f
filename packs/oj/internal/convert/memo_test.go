package convert

import (
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"pgregory.net/rapid"
)

// memoModel is the reference: a slice, most recently used first.
type memoModel struct {
	max     int
	entries []memoEntry
}

func (m *memoModel) size(e memoEntry) int { return len(e.key) + len(e.val) + memoEntryOverhead }

func (m *memoModel) get(key string) (string, bool) {
	for i, e := range m.entries {
		if e.key == key {
			copy(m.entries[1:i+1], m.entries[:i])
			m.entries[0] = e
			return e.val, true
		}
	}
	return "", false
}

func (m *memoModel) put(key, val string) {
	e := memoEntry{key, val}
	if len(key) > m.max/8 || m.size(e) > m.max {
		return
	}
	for _, old := range m.entries {
		if old.key == key {
			return
		}
	}
	used := m.size(e)
	for _, old := range m.entries {
		used += m.size(old)
	}
	for used > m.max {
		last := m.entries[len(m.entries)-1]
		m.entries = m.entries[:len(m.entries)-1]
		used -= m.size(last)
	}
	m.entries = append([]memoEntry{e}, m.entries...)
}

// TestMemo_BoundedLeastRecentlyUsed: against a reference model, the memo
// keeps exactly the most recently used entries that fit its byte budget,
// never holds more than the budget, and never keeps an entry above an
// eighth of it.
func TestMemo_BoundedLeastRecentlyUsed(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		max := rapid.IntRange(memoEntryOverhead, 4*memoEntryOverhead).Draw(t, "max")
		m, model := newMemo(max), &memoModel{max: max}
		keys := rapid.SliceOfN(rapid.StringN(0, -1, max/4), 1, 8).Draw(t, "keys")
		for i := range rapid.IntRange(1, 60).Draw(t, "ops") {
			key := rapid.SampledFrom(keys).Draw(t, "key")
			if rapid.Bool().Draw(t, "isPut") {
				val := strings.Repeat("v", rapid.IntRange(0, max).Draw(t, "valLen")) + strconv.Itoa(i)
				m.put(key, val)
				model.put(key, val)
			} else {
				got, ok := m.get(key)
				want, wok := model.get(key)
				require.Equal(t, wok, ok, "presence of %q", key)
				require.Equal(t, want, got)
			}
			used := 0
			for _, e := range model.entries {
				used += model.size(e)
			}
			require.Equal(t, used, m.used, "bytes accounted")
			require.LessOrEqual(t, m.used, max, "within the budget")
			require.Equal(t, len(model.entries), m.order.Len())
			require.Equal(t, len(model.entries), len(m.entries))
		}
	})
}

// TestConvert_MemoHitsRepeatedStatement: the second conversion of a
// statement is served from the memo, with the same result.
func TestConvert_MemoHitsRepeatedStatement(t *testing.T) {
	c := New()
	in := "<p>Given <code>nums</code>, return <b>indices</b>.</p>"
	first := c.Convert(in)
	require.Equal(t, uint64(1), c.memo.misses)
	assert.Equal(t, first, c.Convert(in))
	assert.Equal(t, uint64(1), c.memo.hits)
	// Text without markup and empty text never reach the memo.
	c.Convert("plain")
	c.Convert("  ")
	assert.Equal(t, uint64(1), c.memo.hits+c.memo.misses-1)

	off := New(WithCacheBytes(-1))
	assert.Nil(t, off.memo)
	assert.Equal(t, first, off.Convert(in))
}

// TestConvert_MemoConcurrentUse: converters shared by goroutines converting
// overlapping statements give every goroutine the right Markdown (run with
// -race).
func TestConvert_MemoConcurrentUse(t *testing.T) {
	c := New(WithCacheBytes(4 << 10)) // small: evictions happen
	want := map[string]string{}
	ref := New(WithCacheBytes(-1))
	var inputs []string
	for i := range 40 {
		in := "<p>problem <b>" + strconv.Itoa(i) + "</b> " + strings.Repeat("x", i*10) + "</p>"
		inputs = append(inputs, in)
		want[in] = ref.Convert(in)
	}
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Go(func() {
			for k := range 200 {
				in := inputs[(g*7+k)%len(inputs)]
				if got := c.Convert(in); got != want[in] {
					t.Errorf("Convert(%q) = %q, want %q", in, got, want[in])
					return
				}
			}
		})
	}
	wg.Wait()
	assert.LessOrEqual(t, c.memo.used, 4<<10)
}
