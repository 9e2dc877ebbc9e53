package com.example.poly;

import com.example.poly.model.Repository;
import com.example.poly.model.User;
import java.util.List;

public class App {
    public static void main(String[] args) {
        Repository repo = new MemoryRepository();
        repo.save(User.of("ada"));
        List<User> all = repo.findAll();
        System.out.println(all.size() + " " + Status.ACTIVE);
    }
}
