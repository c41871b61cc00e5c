"""Runtime: drawing with mesh nodes (VK_EXT_mesh_shader inside dynamic-rendering passes).

Input: an open `device.Device` made with `graphics=True`, the emulated module, the `program.Program`,
the `pipelines.GraphPipelines` of its compute nodes (their pipeline layout and descriptor sets, which
the mesh nodes and the pixel shader share: the pixel shader's resources bind like the nodes') and the
dispatch's `render_target.RenderTarget`.  Output: `Graphics`: the attachments (images in GENERAL
layout, cleared when made), one graphics pipeline per mesh-node entry point (the node's MeshEXT
entry point and the render target's pixel shader), `draw`, which records a level's mesh launches
into the level's command buffer, and `read`, the attachments' texels.

How a mesh node runs: as a broadcasting node of the emulation ABI (`wgc.emulation_abi`, "Mesh
nodes"): host-driven (`draw`), each launch's groups are drawn with `vkCmdDrawMeshTasksEXT` over the
launch's flat groups (one draw per `NodeContext`, as a compute launch has one dispatch per
context); GPU-driven (`draw_indirect`, `gpu_schedule`), with one `vkCmdDrawMeshTasksIndirectEXT`
per launch whose group counts the indirect-setup shader wrote; its NodeContext address in push
constants; the mesh shader reads its record and grid as a broadcasting node does.  Draws of one level are recorded after the level's compute dispatches,
inside one rendering pass (load and store every attachment); the level's closing barrier covers
every stage and the attachment accesses.

D3D12's conventions are kept: the viewport is flipped (negative height, so NDC y points up as in
D3D12), depth range [0, 1], front faces by screen-space winding (`render_target` defaults).

Primitives: where the device has mesh-shader queries (`meshShaderQueries`), each launch's draws are
counted by a VK_QUERY_TYPE_MESH_PRIMITIVES_GENERATED_EXT query (the primitives the mesh shaders
output, culled ones included) and the trace shows them (`TraceDispatch.primitives`); otherwise the
trace leaves them out.

Invariants: every Vulkan object made here is destroyed by `close`; a format the device cannot
render to is `DeviceFailure` naming the attachment before anything runs.
"""

from __future__ import annotations

from typing import Any

from wgc.cached_dataclass import dataclass
from wgc.runtime.device import Buffer, Device, DeviceFailure
from wgc.runtime.render_target import COMPARE_OPS, CULL_MODES, DEPTH_FORMATS, FRONT_FACES, RenderTarget
from wgc.runtime.scheduler import dispatch_shapes

_STAGE_MESH = 0x80
_STAGE_FRAGMENT = 0x10
_USAGE_TRANSFER_SRC = 0x1
_USAGE_TRANSFER_DST = 0x2
_USAGE_COLOR = 0x10
_USAGE_DEPTH = 0x20
_FEATURE_COLOR = 0x80
_FEATURE_BLEND = 0x100
_FEATURE_DEPTH = 0x200
_ASPECT_COLOR = 0x1
_ASPECT_DEPTH = 0x2
_LAYOUT_UNDEFINED = 0
_LAYOUT_GENERAL = 1
_LOAD = 0
_STORE = 0
_BIND_GRAPHICS = 0
_QUERY_MESH_PRIMITIVES = 1000328000
"""VK_QUERY_TYPE_MESH_PRIMITIVES_GENERATED_EXT (VK_EXT_mesh_shader's meshShaderQueries)."""


def mesh_shader_features(device: Device, chain: Any) -> tuple[Any, Any]:
    """(the VkPhysicalDeviceMeshShaderFeaturesEXT to enable, chained before `chain`; the mesh-shader
    limits ((max groups x, y, z), max total groups)), or (None, None) where the device has no mesh
    shaders."""
    vk, ffi = device.vk, device.ffi
    names = set()
    for extension in vk.vkEnumerateDeviceExtensionProperties(device.physical, None):
        name = extension.extensionName
        names.add(name if isinstance(name, str) else ffi.string(name).decode())
    if "VK_EXT_mesh_shader" not in names:
        return None, None
    found = vk.VkPhysicalDeviceMeshShaderFeaturesEXT()
    query = vk.VkPhysicalDeviceFeatures2(pNext=ffi.addressof(found))
    device.lib.vkGetPhysicalDeviceFeatures2(device.physical, ffi.addressof(query))
    if not found.meshShader:
        return None, None
    enabled = vk.VkPhysicalDeviceMeshShaderFeaturesEXT(pNext=ffi.addressof(chain), meshShader=1,
                                                       meshShaderQueries=found.meshShaderQueries)
    props = vk.VkPhysicalDeviceMeshShaderPropertiesEXT()
    p2 = vk.VkPhysicalDeviceProperties2(pNext=ffi.addressof(props))
    device.lib.vkGetPhysicalDeviceProperties2(device.physical, ffi.addressof(p2))
    limits = (tuple(int(props.maxMeshWorkGroupCount[i]) for i in range(3)), int(props.maxMeshWorkGroupTotalCount))
    return enabled, limits


@dataclass
class _Attachment:
    name: str
    image: Any
    memory: Any
    view: Any
    vk_format: int
    texel_bytes: int
    depth: bool


class Graphics:
    """The attachments and mesh-node pipelines of one run (module docstring)."""

    def __init__(self, device: Device, module: bytes, program: Any, pipelines: Any, target: RenderTarget,
                 specialization: dict[int, bytes] | None = None) -> None:
        self.device = device
        self.target = target
        self.pipelines = pipelines
        self.attachments: list[_Attachment] = []
        self._pipelines: dict[str, Any] = {}
        self._queries: Any = None
        self._counted: list[Any] = []
        """The trace entries of the launches drawn since the last `collect`, in query order."""
        vk = device.vk
        try:
            for color in target.colors:
                needed = _FEATURE_COLOR | (_FEATURE_BLEND if target.blend == "alpha" else 0)
                self._attachment(color.name, color.format.vk, color.format.texel_bytes, False, needed,
                                 color.format.name)
            if target.depth is not None:
                self._attachment("depth", target.depth.vk, DEPTH_FORMATS[target.depth.format][1], True,
                                 _FEATURE_DEPTH, target.depth.format)
            self._clear()
            meshes = sorted({n.entry_point for n in program.nodes if n.launch == "mesh"})
            self._make_pipelines(module, meshes, specialization or {})
            (x, y, _), total = device.mesh_properties
            self.max_x = max(1, min(x, total))
            self.max_y = max(1, min(y, total // self.max_x))
            self._draw = vk.vkGetDeviceProcAddr(device.device, "vkCmdDrawMeshTasksEXT")
            self._draw_indirect = vk.vkGetDeviceProcAddr(device.device, "vkCmdDrawMeshTasksIndirectEXT")
            if device.mesh_features.meshShaderQueries:
                self._queries = device.call(vk.vkCreateQueryPool, device.device, vk.VkQueryPoolCreateInfo(
                    queryType=_QUERY_MESH_PRIMITIVES, queryCount=_QUERY_SLOTS), None)
        except BaseException:
            self.close()
            raise

    # ------------------------------------------------------------------ set-up

    def _attachment(self, name: str, vk_format: int, texel_bytes: int, depth: bool, needed: int, spelled: str) -> None:
        device, vk = self.device, self.device.vk
        props = vk.vkGetPhysicalDeviceFormatProperties(device.physical, vk_format)
        if props.optimalTilingFeatures & needed != needed:
            use = "a depth attachment" if depth else ("a blended colour attachment" if needed & _FEATURE_BLEND
                                                      else "a colour attachment")
            raise DeviceFailure(f"'{device.info.name}' cannot use format {spelled} for {use} ('{name}')")
        usage = (_USAGE_DEPTH if depth else _USAGE_COLOR) | _USAGE_TRANSFER_SRC | _USAGE_TRANSFER_DST
        image = device.call(vk.vkCreateImage, device.device, vk.VkImageCreateInfo(
            imageType=vk.VK_IMAGE_TYPE_2D, format=vk_format,
            extent=vk.VkExtent3D(self.target.width, self.target.height, 1), mipLevels=1, arrayLayers=1,
            samples=vk.VK_SAMPLE_COUNT_1_BIT, tiling=vk.VK_IMAGE_TILING_OPTIMAL, usage=usage,
            sharingMode=vk.VK_SHARING_MODE_EXCLUSIVE, initialLayout=_LAYOUT_UNDEFINED), None)
        memory = view = None
        try:
            needs = vk.vkGetImageMemoryRequirements(device.device, image)
            memory = device.allocate(needs.size, needs.memoryTypeBits, f"attachment '{name}'")
            vk.vkBindImageMemory(device.device, image, memory, 0)
            view = device.call(vk.vkCreateImageView, device.device, vk.VkImageViewCreateInfo(
                image=image, viewType=vk.VK_IMAGE_VIEW_TYPE_2D, format=vk_format,
                subresourceRange=_range(vk, depth)), None)
        except BaseException:
            if view is not None:
                vk.vkDestroyImageView(device.device, view, None)
            vk.vkDestroyImage(device.device, image, None)
            if memory is not None:
                vk.vkFreeMemory(device.device, memory, None)
            raise
        self.attachments.append(_Attachment(name, image, memory, view, vk_format, texel_bytes, depth))

    def _clear(self) -> None:
        """Every attachment to GENERAL layout and its clear value."""
        device, vk = self.device, self.device.vk
        device.begin()
        for attachment in self.attachments:
            barrier = vk.VkImageMemoryBarrier(
                srcAccessMask=0, dstAccessMask=vk.VK_ACCESS_TRANSFER_WRITE_BIT, oldLayout=_LAYOUT_UNDEFINED,
                newLayout=_LAYOUT_GENERAL, srcQueueFamilyIndex=vk.VK_QUEUE_FAMILY_IGNORED,
                dstQueueFamilyIndex=vk.VK_QUEUE_FAMILY_IGNORED, image=attachment.image,
                subresourceRange=_range(vk, attachment.depth))
            vk.vkCmdPipelineBarrier(device.command_buffer, vk.VK_PIPELINE_STAGE_TOP_OF_PIPE_BIT,
                                    vk.VK_PIPELINE_STAGE_TRANSFER_BIT, 0, 0, None, 0, None, 1, [barrier])
            if attachment.depth:
                assert self.target.depth is not None
                vk.vkCmdClearDepthStencilImage(
                    device.command_buffer, attachment.image, _LAYOUT_GENERAL,
                    vk.VkClearDepthStencilValue(depth=self.target.depth.clear, stencil=0), 1,
                    [_range(vk, True)])
            else:
                color = next(c for c in self.target.colors if c.name == attachment.name)
                reads = color.format.reads
                value = (vk.VkClearColorValue(float32=list(color.clear)) if reads == "float" else
                         vk.VkClearColorValue(uint32=[int(c) & 0xFFFFFFFF for c in color.clear]) if reads == "uint"
                         else vk.VkClearColorValue(int32=[int(c) for c in color.clear]))
                vk.vkCmdClearColorImage(device.command_buffer, attachment.image, _LAYOUT_GENERAL, value, 1,
                                        [_range(vk, False)])
        device.barrier()
        device.submit()

    def _make_pipelines(self, module: bytes, meshes: list[str], specialization: dict[int, bytes]) -> None:
        device, vk, target = self.device, self.device.vk, self.target
        spec, self._spec_data = device.specialization_info(specialization)
        shader = device.call(vk.vkCreateShaderModule, device.device, vk.VkShaderModuleCreateInfo(
            codeSize=len(module), pCode=module), None)
        try:
            width, height = target.width, target.height
            viewport = vk.VkViewport(x=0.0, y=float(height), width=float(width), height=-float(height),
                                     minDepth=0.0, maxDepth=1.0)
            scissor = vk.VkRect2D(offset=vk.VkOffset2D(0, 0), extent=vk.VkExtent2D(width, height))
            viewports = vk.VkPipelineViewportStateCreateInfo(viewportCount=1, pViewports=[viewport], scissorCount=1,
                                                             pScissors=[scissor])
            raster = vk.VkPipelineRasterizationStateCreateInfo(
                polygonMode=vk.VK_POLYGON_MODE_FILL, cullMode=CULL_MODES[target.cull],
                frontFace=FRONT_FACES[target.front_face], lineWidth=1.0)
            samples = vk.VkPipelineMultisampleStateCreateInfo(rasterizationSamples=vk.VK_SAMPLE_COUNT_1_BIT)
            depth = target.depth
            depth_state = vk.VkPipelineDepthStencilStateCreateInfo(
                depthTestEnable=1 if depth is not None else 0,
                depthWriteEnable=1 if depth is not None and depth.write else 0,
                depthCompareOp=COMPARE_OPS[depth.test] if depth is not None else 0)
            alpha = target.blend == "alpha"
            blends = [vk.VkPipelineColorBlendAttachmentState(
                blendEnable=1 if alpha and c.format.reads == "float" else 0,
                srcColorBlendFactor=vk.VK_BLEND_FACTOR_SRC_ALPHA,
                dstColorBlendFactor=vk.VK_BLEND_FACTOR_ONE_MINUS_SRC_ALPHA, colorBlendOp=vk.VK_BLEND_OP_ADD,
                srcAlphaBlendFactor=vk.VK_BLEND_FACTOR_ONE, dstAlphaBlendFactor=vk.VK_BLEND_FACTOR_ONE_MINUS_SRC_ALPHA,
                alphaBlendOp=vk.VK_BLEND_OP_ADD, colorWriteMask=0xF) for c in target.colors]
            blend = vk.VkPipelineColorBlendStateCreateInfo(attachmentCount=len(blends), pAttachments=blends)
            formats = [c.format.vk for c in target.colors]
            rendering = vk.VkPipelineRenderingCreateInfo(
                colorAttachmentCount=len(formats), pColorAttachmentFormats=formats,
                depthAttachmentFormat=depth.vk if depth is not None else 0)
            assert target.pixel_shader is not None
            for entry in meshes:
                stages = [vk.VkPipelineShaderStageCreateInfo(stage=_STAGE_MESH, module=shader, pName=entry, **spec),
                          vk.VkPipelineShaderStageCreateInfo(stage=_STAGE_FRAGMENT, module=shader,
                                                             pName=target.pixel_shader, **spec)]
                info = vk.VkGraphicsPipelineCreateInfo(
                    pNext=vk.ffi.addressof(rendering), stageCount=2, pStages=stages, pViewportState=viewports,
                    pRasterizationState=raster, pMultisampleState=samples, pDepthStencilState=depth_state,
                    pColorBlendState=blend, layout=self.pipelines.layout)
                self._pipelines[entry] = device.call(vk.vkCreateGraphicsPipelines, device.device, None, 1, [info],
                                                     None)[0]
        finally:
            vk.vkDestroyShaderModule(device.device, shader, None)

    # ------------------------------------------------------------------ drawing

    def shapes(self, groups: int) -> list[tuple[int, int, int]]:
        """(group_offset, nx, ny) draws covering `groups` flat groups within the mesh-shader limits."""
        return dispatch_shapes(groups, self.max_x, self.max_y)

    def draw(self, launches: list[tuple[str, Any, list[tuple[bytes, int, int]]]]) -> None:
        """Record one rendering pass drawing `launches`: (mesh entry point, trace entry, [(push
        constants, nx, ny) per draw]); the trace entries get their primitives at `collect`."""
        if not launches:
            return
        device = self.device
        counted = self._queries is not None and len(launches) <= _QUERY_SLOTS
        self._begin(0, len(launches) if counted else 0)
        cb = device.command_buffer
        bound = None
        for query, (entry, trace, draws) in enumerate(launches):
            bound = self._bind(entry, bound)
            if counted:
                device.vk.vkCmdBeginQuery(cb, self._queries, query, 0)
            for constants, nx, ny in draws:
                device.push(self.pipelines.layout, constants)
                self._draw(cb, nx, ny, 1)
            if counted:
                device.vk.vkCmdEndQuery(cb, self._queries, query)
                self._counted.append(trace)
        device.vk.vkCmdEndRendering(cb)

    def countable(self, launches: int) -> bool:
        """Whether `launches` launches of one recording can each have a primitive query."""
        return self._queries is not None and launches <= _QUERY_SLOTS

    def draw_indirect(self, launches: list[tuple[str, bytes, Buffer, int]], first_query: int | None) -> None:
        """Record one rendering pass drawing `launches` (GPU-driven schedule): (mesh entry point, push
        constants, buffer, offset of the launch's VkDrawMeshTasksIndirectCommandEXT, which an earlier
        command writes: the caller's barrier makes it visible to the draw's indirect read); where
        `first_query` is not None, launch k's primitives are counted in query `first_query + k`
        (`countable`, `primitives`)."""
        if not launches:
            return
        device = self.device
        cb = device.command_buffer
        self._begin(first_query or 0, len(launches) if first_query is not None else 0)
        bound = None
        for k, (entry, constants, buffer, offset) in enumerate(launches):
            bound = self._bind(entry, bound)
            if first_query is not None:
                device.vk.vkCmdBeginQuery(cb, self._queries, first_query + k, 0)
            device.push(self.pipelines.layout, constants)
            self._draw_indirect(cb, buffer.handle, offset, 1, _INDIRECT_STRIDE)
            if first_query is not None:
                device.vk.vkCmdEndQuery(cb, self._queries, first_query + k)
        device.vk.vkCmdEndRendering(cb)

    def primitives(self, count: int) -> list[int] | None:
        """After the submit: the primitives counted by queries 0 .. count - 1 (`draw_indirect`), or
        None where the device could not give them."""
        if count == 0 or self._queries is None:
            return None
        data = self.device.ffi.new(f"uint64_t[{count}]")
        result = self.device.lib.vkGetQueryPoolResults(
            self.device.device, self._queries, 0, count, 8 * count, data, 8, 0x1 | 0x2)    # 64-bit, wait
        return [int(value) for value in data] if result == 0 else None

    def _begin(self, first_query: int, queries: int) -> None:
        """Reset `queries` queries from `first_query` (outside the pass), begin a rendering pass
        that loads and stores every attachment (GENERAL layout throughout), bind the descriptor sets
        to the graphics bind point."""
        device, vk = self.device, self.device.vk
        cb = device.command_buffer
        if queries:
            vk.vkCmdResetQueryPool(cb, self._queries, first_query, queries)
        area = vk.VkRect2D(offset=vk.VkOffset2D(0, 0), extent=vk.VkExtent2D(self.target.width, self.target.height))
        colors = [vk.VkRenderingAttachmentInfo(imageView=a.view, imageLayout=_LAYOUT_GENERAL, loadOp=_LOAD,
                                               storeOp=_STORE) for a in self.attachments if not a.depth]
        depth = [vk.VkRenderingAttachmentInfo(imageView=a.view, imageLayout=_LAYOUT_GENERAL, loadOp=_LOAD,
                                              storeOp=_STORE) for a in self.attachments if a.depth]
        vk.vkCmdBeginRendering(cb, vk.VkRenderingInfo(renderArea=area, layerCount=1,
                                                      colorAttachmentCount=len(colors), pColorAttachments=colors,
                                                      pDepthAttachment=depth[0] if depth else None))
        sets = self.pipelines.sets
        if sets:
            handles = device.ffi.new("VkDescriptorSet[]", sets)
            device.lib.vkCmdBindDescriptorSets(cb, _BIND_GRAPHICS, self.pipelines.layout, 0, len(sets), handles, 0,
                                               device.ffi.NULL)

    def _bind(self, entry: str, bound: Any) -> Any:
        """Bind the pipeline of mesh entry point `entry` unless it is `bound`; the bound pipeline."""
        pipeline = self._pipelines[entry]
        if pipeline is not bound:
            self.device.lib.vkCmdBindPipeline(self.device.command_buffer, _BIND_GRAPHICS, pipeline)
        return pipeline

    def collect(self) -> None:
        """After the submit: the primitives of each counted launch into its trace entry."""
        if not self._counted:
            return
        n = len(self._counted)
        data = self.device.ffi.new(f"uint64_t[{n}]")
        result = self.device.lib.vkGetQueryPoolResults(
            self.device.device, self._queries, 0, n, 8 * n, data, 8, 0x1 | 0x2)    # 64-bit, wait
        if result == 0:
            for trace, value in zip(self._counted, data):
                trace.primitives = int(value)
        self._counted = []

    # ------------------------------------------------------------------ results

    def read(self, name: str) -> bytes:
        """The texels of attachment `name`, row by row from the top (D3D12's first row)."""
        device, vk = self.device, self.device.vk
        attachment = next(a for a in self.attachments if a.name == name)
        size = self.target.width * self.target.height * attachment.texel_bytes
        staging: Buffer = device.buffer(size)
        try:
            aspect = _ASPECT_DEPTH if attachment.depth else _ASPECT_COLOR
            region = vk.VkBufferImageCopy(
                bufferOffset=0, bufferRowLength=0, bufferImageHeight=0,
                imageSubresource=vk.VkImageSubresourceLayers(aspectMask=aspect, mipLevel=0, baseArrayLayer=0,
                                                             layerCount=1),
                imageOffset=vk.VkOffset3D(0, 0, 0), imageExtent=vk.VkExtent3D(self.target.width, self.target.height, 1))
            device.begin()
            device.barrier()
            vk.vkCmdCopyImageToBuffer(device.command_buffer, attachment.image, _LAYOUT_GENERAL, staging.handle, 1,
                                      [region])
            device.barrier()
            device.submit()
            return staging.read(0, size)
        finally:
            device.free(staging)

    def close(self) -> None:
        device, vk = self.device, self.device.vk
        if device.device is None:
            return
        for pipeline in self._pipelines.values():
            vk.vkDestroyPipeline(device.device, pipeline, None)
        self._pipelines = {}
        if self._queries is not None:
            vk.vkDestroyQueryPool(device.device, self._queries, None)
            self._queries = None
        for a in self.attachments:
            vk.vkDestroyImageView(device.device, a.view, None)
            vk.vkDestroyImage(device.device, a.image, None)
            vk.vkFreeMemory(device.device, a.memory, None)
        self.attachments = []


_QUERY_SLOTS = 1024
"""Launches of one level (host-driven) or of one run (GPU-driven) whose primitives are counted (with
more, none are)."""
_INDIRECT_STRIDE = 12
"""sizeof(VkDrawMeshTasksIndirectCommandEXT): three u32 group counts, as VkDispatchIndirectCommand."""


def _range(vk: Any, depth: bool) -> Any:
    return vk.VkImageSubresourceRange(aspectMask=_ASPECT_DEPTH if depth else _ASPECT_COLOR, baseMipLevel=0,
                                      levelCount=1, baseArrayLayer=0, layerCount=1)
