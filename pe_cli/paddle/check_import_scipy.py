"""``paddle.check_import_scipy``: Fluid 1.8's start-up check for Windows, where importing scipy can
fail for want of the Visual C++ runtime."""


def check_import_scipy(OsName):  # noqa: N803 -- Fluid's parameter name
    """On Windows (``OsName == 'nt'``), an ImportError of scipy that says 'DLL load failed' is raised
    again with what to install; any other failure, or another OS, is left alone, as in Fluid."""
    if OsName != "nt":
        return
    try:
        __import__("scipy.io")
    except ImportError as e:
        if "DLL load failed" in str(e):
            raise ImportError(
                f"{e}\nplease download visual C++ Redistributable for vs 2015, "
                f"https://www.microsoft.com/en-us/download/details.aspx?id=48145"
            ) from e
