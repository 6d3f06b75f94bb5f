package topicglob_test

import (
	"fmt"

	"github.com/toolpack-go/toolpack/internal/topicglob"
)

// "notes*" routes every topic that starts with "notes", whatever follows.
func ExampleMatch() {
	for _, topic := range []string{"notes", "notes/2026/11", "status:scan"} {
		ok, _ := topicglob.Match("notes*", topic)
		fmt.Println(topic, ok)
	}
	// Output:
	// notes true
	// notes/2026/11 true
	// status:scan false
}
