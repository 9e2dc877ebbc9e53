'use strict';

function leftPad(str, len, ch) {
  str = String(str);
  while (str.length < len) {
    str = (ch || ' ') + str;
  }
  return str;
}

module.exports = leftPad;
