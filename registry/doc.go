// Package registry holds tools, packs and the one invoke pipeline every call
// goes through.
package registry
