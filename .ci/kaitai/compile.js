// Compile a Kaitai Struct specification to Python with the npm build of the Kaitai compiler.
// Usage: node compile.js NODE_MODULES_DIR < spec.json > files.json
// Reads the specification as JSON on stdin (a .ksy file is YAML; the test converts it) and prints
// {"file name": "source", ...}. Exit status 1 with the compiler's message on stderr when it refuses the spec.
const path = require("path");
const fs = require("fs");
const compiler = require(path.join(process.argv[2], "kaitai-struct-compiler"));
const spec = JSON.parse(fs.readFileSync(0, "utf8"));
compiler.compile("python", spec, null, true)
  .then((files) => process.stdout.write(JSON.stringify(files)))
  .catch((error) => {
    console.error(String(error && error.stack ? error.stack : error));
    process.exit(1);
  });
