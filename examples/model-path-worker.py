"""A worker that hands the model's path to a runtime's loader (docs/python.md): --backend "exec:python examples/model-path-worker.py"."""
import onnxruntime
from onnxruntime.capi.onnxruntime_pybind11_state import NotImplemented as NoKernel
from pad_conformance.worker import Unsupported, serve

sessions = {}  # model path -> loaded model: the data sets of one model share it

def run(case):
    if case.model_path not in sessions:
        try:
            sessions[case.model_path] = onnxruntime.InferenceSession(case.model_path, providers=["CPUExecutionProvider"])
        except NoKernel as error:  # the runtime lacks a kernel: unsupported, not a refusal
            raise Unsupported(str(error)) from error
    session = sessions[case.model_path]
    return session.run(None, case.feeds([i.name for i in session.get_inputs()]))

serve(run, name="onnxruntime by model path", runtime={"name": "onnxruntime", "version": onnxruntime.__version__})
