package store

import "github.com/google/uuid"

const MaxItems = 1000

type Item struct {
	ID   string
	Name string
}

type Reader interface {
	Get(id string) (Item, bool)
}

type Store struct {
	items map[string]Item
}

func New() *Store {
	return &Store{items: map[string]Item{}}
}

func (s *Store) Put(name string) Item {
	it := Item{ID: uuid.NewString(), Name: name}
	s.items[it.ID] = it
	return it
}

func (s *Store) Get(id string) (Item, bool) {
	it, ok := s.items[id]
	return it, ok
}
