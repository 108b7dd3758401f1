"""Node and GPU fingerprint for a peers report, in the field names of our reports
(app/telemetry/fingerprint_json.cpp), from what Python can see: torch.cuda for the
device properties, `nvidia-smi -q` (when present) for driver, VBIOS, GSP firmware,
serial and InfoROM. Fields nobody could read stay null, as in our reports.
"""
from __future__ import annotations

import os
import platform
import re
import shutil
import socket
import subprocess

import torch

# `nvidia-smi -q` line title -> report field
_SMI_FIELDS = {
    "Driver Version": "driver_version",
    "CUDA Version": "cuda_driver_version",
    "VBIOS Version": "vbios_version",
    "GSP Firmware Version": "gsp_firmware_version",
    "Serial Number": "serial",
    "GPU UUID": "uuid",
    "Image Version": "inforom_image_version",
}


def _os_name() -> str | None:
    try:
        for line in open("/etc/os-release"):
            if line.startswith("PRETTY_NAME="):
                return line.split("=", 1)[1].strip().strip('"')
    except OSError:
        pass
    return None


def _triton_version() -> str | None:
    try:
        import triton
    except ImportError:
        return None
    return getattr(triton, "__version__", None)


def node_info(label: str) -> dict:
    return {
        "hostname": socket.gethostname(),
        "label": label,
        "os": _os_name(),
        "kernel_release": platform.release(),
        "cpus_online": os.cpu_count(),
        "python": platform.python_version(),
        "torch": torch.__version__,
        "triton": _triton_version(),
    }


def _smi_by_bus_id() -> dict[str, dict]:
    """Per GPU (keyed by upper-case PCI bus id): the fields of _SMI_FIELDS that nvidia-smi shows."""
    if not shutil.which("nvidia-smi"):
        return {}
    try:
        text = subprocess.run(["nvidia-smi", "-q"], capture_output=True, text=True, timeout=30, check=True).stdout
    except (OSError, subprocess.SubprocessError):
        return {}
    gpus: dict[str, dict] = {}
    current = None
    header = {}
    for line in text.splitlines():
        m = re.match(r"^GPU ([0-9A-Fa-f]+:[0-9A-Fa-f]+:[0-9A-Fa-f]+\.[0-9A-Fa-f]+)\s*$", line)
        if m:
            current = gpus.setdefault(m.group(1).upper(), dict(header))
            continue
        m = re.match(r"^\s*([^:]+?)\s*:\s*(.+?)\s*$", line)
        if not m or m.group(1) not in _SMI_FIELDS:
            continue
        key, value = _SMI_FIELDS[m.group(1)], m.group(2)
        if key == "cuda_driver_version":
            major, _, minor = value.partition(".")
            value = int(major) * 1000 + int(minor or 0) * 10 if major.isdigit() else None
        target = current if current is not None else header  # driver and CUDA versions come before any GPU
        target.setdefault(key, value)
    return gpus


def _smi_query_by_bus_id() -> dict[str, dict]:
    """ECC mode, power limit and maximum SM clock per GPU, from `nvidia-smi --query-gpu`."""
    if not shutil.which("nvidia-smi"):
        return {}
    fields = "pci.bus_id,ecc.mode.current,power.limit,clocks.max.sm"
    try:
        text = subprocess.run(["nvidia-smi", f"--query-gpu={fields}", "--format=csv,noheader,nounits"],
                              capture_output=True, text=True, timeout=30, check=True).stdout
    except (OSError, subprocess.SubprocessError):
        return {}
    gpus = {}
    for line in text.splitlines():
        parts = [p.strip() for p in line.split(",")]
        if len(parts) != 4:
            continue
        bus, ecc, power, clock = parts
        info = {}
        if ecc in ("Enabled", "Disabled"):
            info["ecc_enabled"] = ecc == "Enabled"
        try:
            info["power_limit_w"] = float(power)
        except ValueError:
            pass
        if clock.isdigit():
            info["sm_clock_max_mhz"] = int(clock)
        gpus[bus.upper()] = info
    return gpus


def device_info(device: torch.device) -> dict | None:
    if device.type != "cuda":
        return None
    ordinal = device.index if device.index is not None else torch.cuda.current_device()
    p = torch.cuda.get_device_properties(ordinal)
    bus = None
    if hasattr(p, "pci_bus_id"):
        bus = f"{getattr(p, 'pci_domain_id', 0):08X}:{p.pci_bus_id:02X}:{getattr(p, 'pci_device_id', 0):02X}.0"
    runtime = torch.version.cuda or ""
    major, _, minor = runtime.partition(".")
    info = {
        "cuda_ordinal": ordinal,
        "name": p.name,
        "cc_major": p.major,
        "cc_minor": p.minor,
        "sm_count": p.multi_processor_count,
        "cuda_global_memory_bytes": p.total_memory,
        "pci_bus_id": bus,
        "uuid": f"GPU-{p.uuid}" if hasattr(p, "uuid") else None,
        "cuda_runtime_version": int(major) * 1000 + int(minor or 0) * 10 if major.isdigit() else None,
        "driver_version": None,
        "cuda_driver_version": None,
        "vbios_version": None,
        "gsp_firmware_version": None,
        "serial": None,
        "inforom_image_version": None,
        "ecc_enabled": None,
        "power_limit_w": None,
        "sm_clock_max_mhz": None,
        "notes": ["from torch.cuda and nvidia-smi -q (peers report); cuda_runtime_version is the CUDA torch was built with"],
    }
    for smi in (_smi_by_bus_id(), _smi_query_by_bus_id()):
        info.update({k: v for k, v in smi.get((bus or "").upper(), {}).items() if v not in (None, "N/A")})
    return info
