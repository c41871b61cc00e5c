; ModuleID = 'wgc'
target datalayout = "e-m:e-p:32:32-i1:32-i64:64-f16:32-f32:32-f64:64-n8:16:32:64"
target triple = "dxil-ms-dx"

%class.RaytracingAccelerationStructure = type opaque
%"class.Texture2D<float>" = type opaque
%"class.RWStructuredBuffer<float4>" = type opaque

@Scene = external constant %class.RaytracingAccelerationStructure
@Occluders = external constant [2 x %class.RaytracingAccelerationStructure]
@AlphaMask = external constant %"class.Texture2D<float>"
@Image = external constant %"class.RWStructuredBuffer<float4>"

declare void @CastRays()

declare void @Shade()

!llvm.ident = !{!0}
!dx.version = !{!1}
!dx.shaderModel = !{!2}
!dx.resources = !{!3}
!dx.entryPoints = !{!12, !13, !27}
!wgc.spirv.entryPoints = !{!32, !33}

!0 = !{!"wgc 0.1.0"}
!1 = !{i32 1, i32 9}
!2 = !{!"lib", i32 6, i32 9}
!3 = !{!4, !9, null, null}
!4 = !{!5, !6, !7}
!5 = !{i32 0, %class.RaytracingAccelerationStructure* @Scene, !"Scene", i32 0, i32 0, i32 1, i32 16, i32 0, null}
!6 = !{i32 1, [2 x %class.RaytracingAccelerationStructure]* @Occluders, !"Occluders", i32 0, i32 1, i32 2, i32 16, i32 0, null}
!7 = !{i32 2, %"class.Texture2D<float>"* @AlphaMask, !"AlphaMask", i32 0, i32 3, i32 1, i32 2, i32 0, !8}
!8 = !{i32 0, i32 9}
!9 = !{!10}
!10 = !{i32 0, %"class.RWStructuredBuffer<float4>"* @Image, !"Image", i32 0, i32 4, i32 1, i32 12, i1 false, i1 false, i1 false, !11}
!11 = !{i32 1, i32 16}
!12 = !{null, !"", null, !3, null}
!13 = !{void ()* @CastRays, !"CastRays", null, null, !14}
!14 = !{i32 8, i32 15, i32 13, i32 1, i32 15, !15, i32 16, i32 -1, i32 22, !16, i32 20, !17, i32 21, !21, i32 4, !25, i32 5, !26}
!15 = !{!"CastRays", i32 0}
!16 = !{i32 16, i32 16, i32 1}
!17 = !{!18}
!18 = !{i32 1, i32 97, i32 2, !19}
!19 = !{i32 0, i32 24, i32 1, !20, i32 2, i32 4}
!20 = !{i32 0, i32 5, i32 2}
!21 = !{!22}
!22 = !{i32 1, i32 6, i32 2, !23, i32 3, i32 64, i32 0, !24}
!23 = !{i32 0, i32 32, i32 2, i32 4}
!24 = !{!"Shade", i32 0}
!25 = !{i32 8, i32 8, i32 1}
!26 = !{i32 0}
!27 = !{void ()* @Shade, !"Shade", null, null, !28}
!28 = !{i32 8, i32 15, i32 13, i32 3, i32 15, !24, i32 16, i32 -1, i32 20, !29, i32 4, !31, i32 5, !26}
!29 = !{!30}
!30 = !{i32 1, i32 33, i32 2, !23}
!31 = !{i32 1, i32 1, i32 1}
!32 = !{void ()* @CastRays, !"CastRays"}
!33 = !{void ()* @Shade, !"Shade"}
