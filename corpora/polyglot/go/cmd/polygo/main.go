package main

import (
	"fmt"

	"example.com/polygo/internal/store"
	"example.com/polygo/internal/version"
)

func main() {
	s := store.New()
	item := s.Put("first")
	fmt.Println(version.String(), item.ID)
}
