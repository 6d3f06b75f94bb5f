package transcript_test

import (
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/toolpack-go/toolpack/packs/transcript"
)

// FuzzChunks: any transcript, any size: chunks fit and keep every
// non-space character in order.
func FuzzChunks(f *testing.F) {
	for _, s := range []string{"Hello there. How are you?", "no punctuation at all just words", "Ünïcödé… sentences! here.\nNew line", "x", strings.Repeat("a", 100), "今日は晴れです。明日は雨ですか？はい！"} {
		f.Add(s, 10)
	}
	f.Fuzz(func(t *testing.T, text string, n int) {
		if !utf8.ValidString(text) || n > 1<<16 {
			return
		}
		chunks := transcript.Chunks(text, n)
		for _, c := range chunks {
			if utf8.RuneCountInString(c) > max(n, 1) {
				t.Fatalf("chunk of %d runes for n=%d", utf8.RuneCountInString(c), n)
			}
		}
		if nonSpace(strings.Join(chunks, "")) != nonSpace(text) {
			t.Fatalf("characters lost or reordered")
		}
	})
}

// BenchmarkChunks: splitting a 1 MB transcript into 16 k-character chunks
// (MB/s), against one pass counting its runes (the floor of any splitter
// reading every character), in the same run.
func BenchmarkChunks(b *testing.B) {
	var sb strings.Builder
	words := strings.Fields("so um I think the the plan is basically that we you know ship it on friday and then like see what happens okay")
	for i := 0; sb.Len() < 1<<20; i++ {
		sb.WriteString(words[i%len(words)])
		if i%17 == 16 {
			sb.WriteString(". ")
		} else {
			sb.WriteString(" ")
		}
	}
	text := sb.String()
	b.Run("chunks", func(b *testing.B) {
		b.SetBytes(int64(len(text)))
		b.ReportAllocs()
		for b.Loop() {
			if len(transcript.Chunks(text, 16000)) == 0 {
				b.Fatal("no chunks")
			}
		}
	})
	b.Run("count-runes-floor", func(b *testing.B) {
		b.SetBytes(int64(len(text)))
		for b.Loop() {
			if utf8.RuneCountInString(text) == 0 {
				b.Fatal("empty")
			}
		}
	})
}
