# bankit: one process serving the game (set REDIS_URL to join a cluster of them).
# Alone (no REDIS_URL) it keeps its rooms in /data/bankit.sqlite3: mount a volume there.
FROM python:3.11-slim AS build
WORKDIR /src
COPY pyproject.toml README.md ./
COPY app ./app
RUN pip install --no-cache-dir --prefix=/install .

FROM python:3.11-slim
ENV PYTHONUNBUFFERED=1 PYTHONDONTWRITEBYTECODE=1 BANKIT_DATA_DIR=/data
RUN useradd --create-home --uid 10001 bankit && mkdir /data && chown bankit:bankit /data
COPY --from=build /install /usr/local
WORKDIR /srv/bankit
COPY --chown=bankit:bankit app ./app
COPY --chown=bankit:bankit static ./static
USER bankit
VOLUME /data
EXPOSE 8000
HEALTHCHECK --interval=10s --timeout=3s --start-period=5s --retries=3 \
  CMD ["python", "-c", "import urllib.request,sys; sys.exit(0 if urllib.request.urlopen('http://127.0.0.1:8000/healthz', timeout=2).status == 200 else 1)"]
STOPSIGNAL SIGTERM
CMD ["python", "-m", "app", "--host", "0.0.0.0", "--port", "8000"]
