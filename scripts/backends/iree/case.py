"""The Python steps of scripts/backends/iree-per-case, run by .venv-iree's python:

    case.py import MODEL OUT.mlir OUTPUT_DIR   the model to torch-dialect MLIR, by IREE's importer
    case.py to-npy INPUT.pb OUT.npy            a TensorProto input as iree-run-module reads it
    case.py to-pb IN.npy OUTPUT.pb             iree-run-module's output as the runner reads it

`import` exits 65 with OUTPUT_DIR/error.json when onnx's checker, which IREE's importer runs
first, rejects the model (onnx.checker.ValidationError: the model is invalid by the spec);
any other exception is a traceback and exit 1 (failed), never a refusal.
"""

import json
import sys

import numpy as np
import onnx
from onnx import numpy_helper


def import_model(model, mlir, output_dir):
    from iree.compiler.tools.import_onnx.__main__ import main, parse_arguments

    try:
        main(parse_arguments([model, "-o", mlir]))
    except onnx.checker.ValidationError as error:
        message = str(error).strip().splitlines()[0][:500]
        with open(f"{output_dir}/error.json", "w", encoding="utf-8") as out:
            json.dump({"code": "onnx.checker.ValidationError", "message": message}, out)
        print(f"iree-import-onnx: onnx's checker rejects the model: {message}", file=sys.stderr)
        sys.exit(65)
    # The function iree-run-module calls: the importer names it after the graph.
    print(onnx.load(model, load_external_data=False).graph.name)


def main():
    verb, source, target = sys.argv[1:4]
    if verb == "import":
        import_model(source, target, sys.argv[4])
    elif verb == "to-npy":
        np.save(target, numpy_helper.to_array(onnx.load_tensor(source)))
    elif verb == "to-pb":
        onnx.save_tensor(numpy_helper.from_array(np.load(source)), target)
    else:
        sys.exit(f"case.py: unknown verb {verb!r}")


if __name__ == "__main__":
    main()
