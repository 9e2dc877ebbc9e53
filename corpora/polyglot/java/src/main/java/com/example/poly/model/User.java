package com.example.poly.model;

public class User {
    private String name;

    public static User of(String name) {
        User user = new User();
        user.name = name;
        return user;
    }

    public String getName() {
        return name;
    }
}
