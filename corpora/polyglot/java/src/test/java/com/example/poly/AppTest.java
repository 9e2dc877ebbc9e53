package com.example.poly;

import com.example.poly.model.User;
import org.junit.Test;

public class AppTest {
    @Test
    public void userKeepsName() {
        assert User.of("ada").getName().equals("ada");
    }
}
