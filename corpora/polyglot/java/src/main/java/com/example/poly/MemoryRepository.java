package com.example.poly;

import com.example.poly.model.Repository;
import com.example.poly.model.User;
import java.util.ArrayList;
import java.util.List;

class MemoryRepository implements Repository {
    private final List<User> users = new ArrayList<>();

    public List<User> findAll() {
        return users;
    }

    public void save(User user) {
        users.add(user);
    }
}
