"""NVML samples around each timed pass of a peer, in the shape of our reports' `clocks`
(docs/report-schema.md, "clocks"; app/telemetry/clock_sample.cpp), so a peer's TFLOPS carry
the SM clock and power they were measured at, as ours do, and `vsa-bench compare` / `render`
show them. Peers are timed in another process than ours, after it, so the card's power state
can differ between the two; without the clock a ratio across the two reports cannot say
whether it compares kernels or clocks (notes/runs.md, run 32).

Uses `pynvml` (PyPI nvidia-ml-py, which the H200 image has) when it imports and NVML
initialises; otherwise `sampler_for()` returns None and timings keep `clocks: null`.
"""
from __future__ import annotations

import functools
from typing import Callable, Optional

# NVML's clock-event reason bits and whether each lowers the clock below the requested one
# (the table of app/telemetry/clock_sample.cpp, names as in our reports).
REASONS = (
    (0x1, "gpu_idle", False),
    (0x2, "applications_clocks", False),
    (0x4, "sw_power_cap", True),
    (0x8, "hw_slowdown", True),
    (0x10, "sync_boost", True),
    (0x20, "sw_thermal", True),
    (0x40, "hw_thermal", True),
    (0x80, "hw_power_brake", True),
    (0x100, "display_clocks", False),
    (0x200, "board_limit", True),
    (0x400, "reliability", True),
)


def reason_names(mask: int) -> list[str]:
    names = []
    for bit in range(64):
        value = 1 << bit
        if mask & value:
            known = [name for b, name, _ in REASONS if b == value]
            names.append(known[0] if known else f"unknown_{value:#x}")
    return names


def slowed_down(mask: int) -> bool:
    return any(mask & b for b, _, slow in REASONS if slow)


def sample_from(read: Callable[[str], Optional[float]]) -> dict:
    """One sample from `read(field)`, which returns a number or None where NVML could not say."""
    mask = read("event_reasons")
    mask = int(mask) if mask is not None else None
    return {
        "sm_clock_mhz": read("sm_clock_mhz"),
        "mem_clock_mhz": read("mem_clock_mhz"),
        "temperature_c": read("temperature_c"),
        "power_w": read("power_w"),
        "power_instant_w": read("power_instant_w"),
        "event_reasons": mask,
        "reasons": reason_names(mask) if mask is not None else [],
        "slowed_down": slowed_down(mask) if mask is not None else None,
    }


# NVML_FI_DEV_POWER_INSTANT: the power drawn now, in milliwatts (nvmlDeviceGetPowerUsage is a
# one-second mean on Ampere and newer), as app/telemetry/nvml_api.hpp reads it.
POWER_INSTANT_FIELD = 186
# nvmlValueType_t -> the member of nvmlValue_t that holds it.
VALUE_MEMBERS = {0: "dVal", 1: "uiVal", 2: "ulVal", 3: "ullVal", 4: "sllVal", 5: "siVal", 6: "usVal"}


def field_number(field) -> Optional[float]:
    """The number an nvmlFieldValue_t holds, or None where the field itself failed."""
    if field.nvmlReturn != 0:
        return None
    member = VALUE_MEMBERS.get(field.valueType)
    return float(getattr(field.value, member)) if member else None


def instant_power_w(field) -> Optional[float]:
    """NVML_FI_DEV_POWER_INSTANT's milliwatts as watts, or None where the field failed."""
    mw = field_number(field)
    return mw / 1000.0 if mw is not None else None


@functools.lru_cache(maxsize=None)
def sampler_for(device_index: int) -> Optional[Callable[[], dict]]:
    """A function returning one NVML sample of the CUDA device torch calls `device_index`
    (matched by PCI address, since NVML and CUDA may number GPUs differently), or None."""
    try:
        import pynvml
        import torch

        pynvml.nvmlInit()
        props = torch.cuda.get_device_properties(device_index)
        bus = f"{props.pci_domain_id:08x}:{props.pci_bus_id:02x}:{props.pci_device_id:02x}.0"
        handle = pynvml.nvmlDeviceGetHandleByPciBusId(bus)
    except Exception:  # no pynvml, no driver, an older torch without the PCI fields
        return None
    event_reasons = getattr(pynvml, "nvmlDeviceGetCurrentClocksEventReasons", None) or getattr(
        pynvml, "nvmlDeviceGetCurrentClocksThrottleReasons")
    fields = {
        "sm_clock_mhz": lambda: pynvml.nvmlDeviceGetClockInfo(handle, pynvml.NVML_CLOCK_SM),
        "mem_clock_mhz": lambda: pynvml.nvmlDeviceGetClockInfo(handle, pynvml.NVML_CLOCK_MEM),
        "temperature_c": lambda: pynvml.nvmlDeviceGetTemperature(handle, pynvml.NVML_TEMPERATURE_GPU),
        "power_w": lambda: pynvml.nvmlDeviceGetPowerUsage(handle) / 1000.0,
        "power_instant_w": lambda: instant_power_w(pynvml.nvmlDeviceGetFieldValues(handle, [POWER_INSTANT_FIELD])[0]),
        "event_reasons": lambda: event_reasons(handle),
    }

    def read(field: str) -> Optional[float]:
        try:
            return fields[field]()
        except Exception:  # NVML_ERROR_NOT_SUPPORTED and the like: this field is unknown
            return None

    return lambda: sample_from(read)
