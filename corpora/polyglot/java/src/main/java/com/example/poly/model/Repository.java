package com.example.poly.model;

import java.util.List;

public interface Repository {
    List<User> findAll();

    void save(User user);
}
