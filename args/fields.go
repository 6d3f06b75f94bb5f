package args

import (
	"cmp"
	"reflect"
	"slices"
	"strings"

	"github.com/toolpack-go/toolpack/internal/valuesize"
)

// jsonField is one struct field as encoding/json sees it once embedded
// structs are flattened.
type jsonField struct {
	sf     reflect.StructField // the Go field itself
	name   string              // JSON name
	tagged bool                // the json tag names it
	index  []int               // path from the outer struct, through embedded structs
	viaPtr bool                // an embedded pointer lies on the path (it may be nil)
	opts   string              // json tag options after the name
	owner  reflect.Type        // the struct type declaring the field
	dup    bool                // a second copy: the declaring type is embedded twice at one depth
}

func (f jsonField) option(o string) bool {
	for _, x := range strings.Split(f.opts, ",") {
		if x == o {
			return true
		}
	}
	return false
}

// jsonFields lists the fields encoding/json decodes into and encodes from for
// struct type t, in its order, following the rules its documentation states:
// the fields of an embedded struct without a json name are promoted; among
// fields sharing a JSON name the least nested wins, a tagged one beating
// untagged ones at the same depth; if that leaves more than one, all are
// dropped. hidden lists the fields dropped that way.
func jsonFields(t reflect.Type) (visible, hidden []jsonField) {
	type level struct {
		typ    reflect.Type
		index  []int
		viaPtr bool
	}
	var all []jsonField
	current := []level{{typ: t}}
	count := map[reflect.Type]int{t: 1}
	visited := map[reflect.Type]bool{}
	for len(current) > 0 {
		var next []level
		nextCount := map[reflect.Type]int{}
		for _, l := range current {
			if visited[l.typ] {
				continue
			}
			visited[l.typ] = true
			for i := 0; i < l.typ.NumField(); i++ {
				sf := l.typ.Field(i)
				if sf.Anonymous {
					et := sf.Type
					if et.Kind() == reflect.Pointer {
						et = et.Elem()
					}
					if !sf.IsExported() && et.Kind() != reflect.Struct {
						continue
					}
				} else if !sf.IsExported() {
					continue
				}
				tag := sf.Tag.Get("json")
				if tag == "-" {
					continue
				}
				name, opts, _ := strings.Cut(tag, ",")
				if !valuesize.ValidTagName(name) {
					name = ""
				}
				index := append(slices.Clone(l.index), i)
				ft := sf.Type
				if ft.Name() == "" && ft.Kind() == reflect.Pointer {
					ft = ft.Elem()
				}
				if name != "" || !sf.Anonymous || ft.Kind() != reflect.Struct {
					f := jsonField{sf: sf, name: name, tagged: name != "", index: index, viaPtr: l.viaPtr, opts: opts, owner: l.typ}
					if f.name == "" {
						f.name = sf.Name
					}
					all = append(all, f)
					if count[l.typ] > 1 {
						// The declaring type is embedded more than once at
						// this depth: a second copy makes its names conflict.
						d := f
						d.dup = true
						all = append(all, d)
					}
					continue
				}
				nextCount[ft]++
				if nextCount[ft] == 1 {
					next = append(next, level{typ: ft, index: index, viaPtr: l.viaPtr || sf.Type.Kind() == reflect.Pointer})
				}
			}
		}
		current, count = next, nextCount
	}

	slices.SortStableFunc(all, func(a, b jsonField) int {
		if c := strings.Compare(a.name, b.name); c != 0 {
			return c
		}
		if c := cmp.Compare(len(a.index), len(b.index)); c != 0 {
			return c
		}
		if a.tagged != b.tagged {
			if a.tagged {
				return -1
			}
			return 1
		}
		return slices.Compare(a.index, b.index)
	})
	for i := 0; i < len(all); {
		j := i + 1
		for j < len(all) && all[j].name == all[i].name {
			j++
		}
		group := all[i:j]
		win := len(group) == 1 || len(group[0].index) != len(group[1].index) || group[0].tagged != group[1].tagged
		for k, f := range group {
			if f.dup {
				continue
			}
			if k == 0 && win {
				visible = append(visible, f)
			} else {
				hidden = append(hidden, f)
			}
		}
		i = j
	}
	slices.SortFunc(visible, func(a, b jsonField) int { return slices.Compare(a.index, b.index) })
	return visible, hidden
}

// fieldRead returns the field at index in struct v, or false when an
// embedded pointer on the way is nil.
func fieldRead(v reflect.Value, index []int) (reflect.Value, bool) {
	if len(index) == 1 {
		return v.Field(index[0]), true
	}
	for i, x := range index {
		if i > 0 && v.Kind() == reflect.Pointer {
			if v.IsNil() {
				return reflect.Value{}, false
			}
			v = v.Elem()
		}
		v = v.Field(x)
	}
	return v, true
}

// fieldAlloc returns the field at index in struct v, allocating nil
// embedded pointers on the way as encoding/json does.
func fieldAlloc(v reflect.Value, index []int) reflect.Value {
	if len(index) == 1 {
		return v.Field(index[0])
	}
	for i, x := range index {
		if i > 0 && v.Kind() == reflect.Pointer {
			if v.IsNil() {
				v.Set(reflect.New(v.Type().Elem()))
			}
			v = v.Elem()
		}
		v = v.Field(x)
	}
	return v
}
