"""A PyTorch image classifier and its training script, with the device-placement bugs that
cost GPU runs. `placer check example-models` reports each; the comment says which rule and
what the fix is."""
import time

import torch
import torch.nn as nn
from torch.utils.data import DataLoader


class Attention(nn.Module):
    def __init__(self, dim, max_len):
        super().__init__()
        self.qkv = nn.Linear(dim, 3 * dim)
        # P401 unregistered-buffer: a plain attribute stays on the CPU when the model moves.
        # Fix: self.register_buffer("causal", torch.tril(torch.ones(max_len, max_len)))
        self.causal = torch.tril(torch.ones(max_len, max_len))

    def forward(self, x):
        q, k, v = self.qkv(x).chunk(3, dim=-1)
        scores = q @ k.transpose(-2, -1)
        n = x.shape[1]
        scores = scores.masked_fill(self.causal[:n, :n] == 0, float("-inf"))
        # P101 tensor-on-default-device: built on the CPU in forward, meets the CUDA input.
        # Fix: torch.full(..., device=x.device)
        temperature = torch.full((n, n), 0.5)
        return (scores * temperature).softmax(-1) @ v


class Classifier(nn.Module):
    def __init__(self, dim, classes, max_len):
        super().__init__()
        self.attn = Attention(dim, max_len)
        self.head = nn.Linear(dim, classes)

    def forward(self, x):
        return self.head(self.attn(x).mean(1))


def evaluate(dataset, device):
    model = Classifier(64, 10, 128).to(device)
    loader = DataLoader(dataset, batch_size=256)
    correct = 0
    for x, y in loader:
        # P402 model-input-device-mismatch: the model is on `device`, the batch is not.
        # Fix: x, y = x.to(device), y.to(device)
        logits = model(x)
        correct += (logits.argmax(-1) == y).sum()
    return correct


def train(dataset, device):
    model = Classifier(64, 10, 128).to(device)
    opt = torch.optim.AdamW(model.parameters())
    # P204 dataloader-without-pin-memory (pedantic): batches are copied to the GPU from
    # pageable memory. Fix: DataLoader(..., pin_memory=True)
    loader = DataLoader(dataset, batch_size=32, shuffle=True)
    total = 0.0
    for x, y in loader:
        x, y = x.to(device), y.to(device)
        loss = nn.functional.cross_entropy(model(x), y)
        opt.zero_grad()
        loss.backward()
        opt.step()
        # P301 host-sync-in-loop: one device synchronisation per step to add a float.
        # Fix: total = total + loss.detach(); read total.item() once after the loop
        total += loss.item()
        # P303 empty-cache-in-loop: returns memory the next step allocates again.
        torch.cuda.empty_cache()
    return total


def benchmark(model, x):
    start = time.perf_counter()
    model(x)
    # P302 unsynchronized-timing (pedantic, `--extend-select P302`): the forward pass may still be
    # queued on the GPU.
    # Fix: torch.cuda.synchronize() before reading the clock
    return time.perf_counter() - start
