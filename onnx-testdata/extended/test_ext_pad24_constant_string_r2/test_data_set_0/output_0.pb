2🙂 pad2🙂 pad2🙂 pad2🙂 pad2🙂 pad2🙂 pad2
Ωμέγα2🙂2é2naïve2🙂 pad2🙂 pad2naïve2
Ωμέγα2
Ωμέγα2日本2🙂 pad2🙂 padBy