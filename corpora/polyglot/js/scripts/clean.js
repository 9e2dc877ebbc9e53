const fs = require('fs');
const path = require('path');

function clean(dir) {
  fs.rmSync(path.join(dir, 'dist'), { recursive: true, force: true });
}

module.exports = { clean };
