<?php

function greet(string $name): string
{
    return (new Greeter())->hello($name);
}

class Greeter
{
    public function hello(string $name): string
    {
        return "Hello, " . $name;
    }
}
