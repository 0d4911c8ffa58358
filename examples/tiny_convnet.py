"""A model given as PyTorch code: ngraphbench runs `examples/tiny_convnet.py:make_model` on every
compiler (docs/experiments.md, "Models from PyTorch"):

    ./run.sh examples/tiny_convnet.py:make_model onnxruntime --input-shape 3,32,32 --quick
"""
import torch
from torch import nn


class TinyConvNet(nn.Module):
    """Conv-BN-ReLU twice, a residual add, global average pooling and a classifier."""

    def __init__(self, width=16, classes=10):
        super().__init__()
        self.stem = nn.Sequential(nn.Conv2d(3, width, 3, padding=1, bias=False),
                                  nn.BatchNorm2d(width), nn.ReLU())
        self.block = nn.Sequential(nn.Conv2d(width, width, 3, padding=1, bias=False),
                                   nn.BatchNorm2d(width), nn.ReLU())
        self.head = nn.Linear(width, classes)

    def forward(self, x):
        x = self.stem(x)
        x = x + self.block(x)
        return self.head(torch.flatten(nn.functional.adaptive_avg_pool2d(x, 1), 1))


def make_model():
    return TinyConvNet()
