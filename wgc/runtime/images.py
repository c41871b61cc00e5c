"""Runtime: textures, typed buffers and samplers on a Vulkan device (the non-buffer descriptors).

Input: an open `device.Device` and the descriptions a dispatch gives (`dispatch.TextureData`,
`dispatch.SamplerData`), with what the shader declares (`program.ImageShape`, and whether it
writes: storage image or storage texel buffer).  Output: `Texture` (a VkImage in GENERAL layout,
its contents uploaded, with an image view of the declared dimension), `TexelBuffer` (a buffer
with a buffer view of the format) and samplers; `read` gives a texture's or typed buffer's
texels back in the order they were given (mip level, layer, z, y, x).

Invariants: the device must support the format for the use (sampled, storage, texel buffer) and
linear filtering where a sampler filters linearly; otherwise `DeviceFailure` names the resource,
format and use, before anything runs.  Every object made here is destroyed by `destroy`
(`Session.close` calls it).  Images live in GENERAL layout after upload, which both sampled and
storage access allow.
"""

from __future__ import annotations

from typing import Any

from wgc.cached_dataclass import dataclass
from wgc.runtime.device import Buffer, Device, DeviceFailure
from wgc.runtime.dispatch import SamplerData, TextureData
from wgc.runtime.program import ImageShape

_FEATURE_SAMPLED = 0x1
_FEATURE_STORAGE = 0x2
_FEATURE_UNIFORM_TEXEL = 0x8
_FEATURE_STORAGE_TEXEL = 0x10
_FEATURE_FILTER_LINEAR = 0x1000
_USAGE_TRANSFER_SRC = 0x1
_USAGE_TRANSFER_DST = 0x2
_USAGE_UNIFORM_TEXEL = 0x4
_USAGE_STORAGE_TEXEL = 0x8
_USAGE_SAMPLED = 0x4
_USAGE_STORAGE = 0x8
_LAYOUT_UNDEFINED = 0
_LAYOUT_GENERAL = 1
_ASPECT_COLOR = 0x1
_CUBE_COMPATIBLE = 0x10
_IMAGE_TYPES = {"1D": 0, "2D": 1, "Cube": 1, "3D": 2}
_VIEW_TYPES = {("1D", False): 0, ("2D", False): 1, ("3D", False): 2, ("Cube", False): 3, ("1D", True): 4,
               ("2D", True): 5, ("Cube", True): 6}


@dataclass
class Texture:
    handle: Any
    memory: Any
    view: Any
    texture: TextureData


@dataclass
class TexelBuffer:
    buffer: Buffer
    view: Any
    texture: TextureData


def _supports(device: Device, name: str, texture: TextureData, needed: int, where: str, use: str) -> None:
    props = device.vk.vkGetPhysicalDeviceFormatProperties(device.physical, texture.format.vk)
    features = props.bufferFeatures if where == "buffer" else props.optimalTilingFeatures
    if features & needed != needed:
        raise DeviceFailure(f"'{device.info.name}' cannot use format {texture.format.name} for {use} "
                            f"('{name}')")


def create_texture(device: Device, name: str, texture: TextureData, shape: ImageShape, storage: bool,
                   linear: bool) -> Texture:
    """An image holding `texture`, sampled (or `storage`) as `shape` declares; `linear`: some sampler
    filters it linearly."""
    vk = device.vk
    needed = (_FEATURE_STORAGE if storage else _FEATURE_SAMPLED) | (_FEATURE_FILTER_LINEAR if linear else 0)
    _supports(device, name, texture, needed, "image", ("a storage image" if storage else "a sampled image")
              + (" filtered linearly" if linear else ""))
    info = vk.VkImageCreateInfo(
        flags=_CUBE_COMPATIBLE if shape.dim == "Cube" else 0, imageType=_IMAGE_TYPES[shape.dim],
        format=texture.format.vk, extent=vk.VkExtent3D(texture.width, texture.height, texture.depth),
        mipLevels=texture.mips, arrayLayers=texture.layers, samples=vk.VK_SAMPLE_COUNT_1_BIT,
        tiling=vk.VK_IMAGE_TILING_OPTIMAL,
        usage=(_USAGE_STORAGE if storage else _USAGE_SAMPLED) | _USAGE_TRANSFER_SRC | _USAGE_TRANSFER_DST,
        sharingMode=vk.VK_SHARING_MODE_EXCLUSIVE, initialLayout=_LAYOUT_UNDEFINED)
    handle = device.call(vk.vkCreateImage, device.device, info, None)
    memory = view = None
    try:
        needs = vk.vkGetImageMemoryRequirements(device.device, handle)
        memory = device.allocate(needs.size, needs.memoryTypeBits, f"image '{name}'")
        vk.vkBindImageMemory(device.device, handle, memory, 0)
        view = device.call(vk.vkCreateImageView, device.device, vk.VkImageViewCreateInfo(
            image=handle, viewType=_VIEW_TYPES[(shape.dim, shape.arrayed)], format=texture.format.vk,
            subresourceRange=_whole(vk, texture)), None)
        result = Texture(handle, memory, view, texture)
        _copy(device, result, upload=True)
        return result
    except BaseException:
        if view is not None:
            vk.vkDestroyImageView(device.device, view, None)
        vk.vkDestroyImage(device.device, handle, None)
        if memory is not None:
            vk.vkFreeMemory(device.device, memory, None)
        raise


def create_texel_buffer(device: Device, name: str, texture: TextureData, storage: bool) -> TexelBuffer:
    """A buffer holding `texture`'s texels and a view of its format (uniform or `storage` texel buffer)."""
    vk = device.vk
    _supports(device, name, texture, _FEATURE_STORAGE_TEXEL if storage else _FEATURE_UNIFORM_TEXEL, "buffer",
              "a storage texel buffer" if storage else "a uniform texel buffer")
    buffer = device.buffer(len(texture.data), usage=_USAGE_STORAGE_TEXEL if storage else _USAGE_UNIFORM_TEXEL)
    buffer.write(0, texture.data)
    try:
        view = device.call(vk.vkCreateBufferView, device.device, vk.VkBufferViewCreateInfo(
            buffer=buffer.handle, format=texture.format.vk, offset=0, range=len(texture.data)), None)
    except BaseException:
        device.free(buffer)
        raise
    return TexelBuffer(buffer, view, texture)


def create_sampler(device: Device, sampler: SamplerData) -> Any:
    vk = device.vk
    return device.call(vk.vkCreateSampler, device.device, vk.VkSamplerCreateInfo(
        magFilter=sampler.mag_filter, minFilter=sampler.min_filter, mipmapMode=sampler.mip_filter,
        addressModeU=sampler.address[0], addressModeV=sampler.address[1], addressModeW=sampler.address[2],
        mipLodBias=sampler.mip_lod_bias, anisotropyEnable=0, maxAnisotropy=1.0,
        compareEnable=1 if sampler.compare is not None else 0, compareOp=sampler.compare or 0,
        minLod=sampler.min_lod, maxLod=sampler.max_lod, borderColor=sampler.border,
        unnormalizedCoordinates=0), None)


def read(device: Device, item: Texture | TexelBuffer) -> bytes:
    """The texels of a texture or typed buffer, in the order they were given."""
    if isinstance(item, TexelBuffer):
        return item.buffer.read(0, len(item.texture.data))
    return _copy(device, item, upload=False)


def destroy(device: Device, item: Texture | TexelBuffer | Any) -> None:
    vk = device.vk
    if isinstance(item, Texture):
        vk.vkDestroyImageView(device.device, item.view, None)
        vk.vkDestroyImage(device.device, item.handle, None)
        vk.vkFreeMemory(device.device, item.memory, None)
    elif isinstance(item, TexelBuffer):
        vk.vkDestroyBufferView(device.device, item.view, None)
        device.free(item.buffer)
    else:
        vk.vkDestroySampler(device.device, item, None)


def _whole(vk: Any, texture: TextureData) -> Any:
    return vk.VkImageSubresourceRange(aspectMask=_ASPECT_COLOR, baseMipLevel=0, levelCount=texture.mips,
                                      baseArrayLayer=0, layerCount=texture.layers)


def _copy(device: Device, image: Texture, upload: bool) -> bytes:
    """Upload the texture's data (leaving the image in GENERAL layout) or read it back."""
    vk = device.vk
    texture = image.texture
    staging = device.buffer(texture.size)
    try:
        if upload:
            staging.write(0, texture.data)
        regions = []
        offset = 0
        for level in range(texture.mips):
            width, height, depth = texture.level_extent(level)
            regions.append(vk.VkBufferImageCopy(
                bufferOffset=offset, bufferRowLength=0, bufferImageHeight=0,
                imageSubresource=vk.VkImageSubresourceLayers(aspectMask=_ASPECT_COLOR, mipLevel=level,
                                                             baseArrayLayer=0, layerCount=texture.layers),
                imageOffset=vk.VkOffset3D(0, 0, 0), imageExtent=vk.VkExtent3D(width, height, depth)))
            offset += texture.level_bytes(level)
        device.begin()
        if upload:
            _transition(device, image, _LAYOUT_UNDEFINED, _LAYOUT_GENERAL)
            vk.vkCmdCopyBufferToImage(device.command_buffer, staging.handle, image.handle, _LAYOUT_GENERAL,
                                      len(regions), regions)
        else:
            device.barrier()
            vk.vkCmdCopyImageToBuffer(device.command_buffer, image.handle, _LAYOUT_GENERAL, staging.handle,
                                      len(regions), regions)
        device.barrier()
        device.submit()
        return b"" if upload else staging.read(0, texture.size)
    finally:
        device.free(staging)


def _transition(device: Device, image: Texture, old: int, new: int) -> None:
    vk = device.vk
    barrier = vk.VkImageMemoryBarrier(
        srcAccessMask=0, dstAccessMask=vk.VK_ACCESS_TRANSFER_WRITE_BIT, oldLayout=old, newLayout=new,
        srcQueueFamilyIndex=vk.VK_QUEUE_FAMILY_IGNORED, dstQueueFamilyIndex=vk.VK_QUEUE_FAMILY_IGNORED,
        image=image.handle, subresourceRange=_whole(vk, image.texture))
    vk.vkCmdPipelineBarrier(device.command_buffer, vk.VK_PIPELINE_STAGE_TOP_OF_PIPE_BIT,
                            vk.VK_PIPELINE_STAGE_TRANSFER_BIT, 0, 0, None, 0, None, 1, [barrier])
