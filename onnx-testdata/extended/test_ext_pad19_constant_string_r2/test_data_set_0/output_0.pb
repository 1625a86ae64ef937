2🙂 pad2🙂 pad2🙂 pad2🙂 pad2🙂 pad2🙂 pad2🙂 pad2🙂 pad2🙂 pad2🙂 pad2🙂 pad2🙂 pad2🙂 pad2🙂 pad2🙂 pad2
Ωμέγα2a b2é2日本2🙂 pad2🙂 pad2🙂 pad2🙂 pad2🙂 pad2🙂 pad2🙂 pad2🙂 pad2🙂 padBy