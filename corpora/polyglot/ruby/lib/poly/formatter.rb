require "json"

module Poly
  class Formatter
    def initialize(prefix)
      @prefix = prefix
    end

    def format(text)
      JSON.generate({ @prefix => text })
    end

    def self.default
      new("poly")
    end
  end
end
