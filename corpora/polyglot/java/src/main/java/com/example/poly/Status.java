package com.example.poly;

public enum Status {
    ACTIVE,
    DISABLED
}
