; ModuleID = "wgc"
target triple = "dxil-ms-dx"
target datalayout = ""

%"class.RaytracingAccelerationStructure" = type opaque
%"class.Texture2D<float>" = type opaque
%"class.RWStructuredBuffer<float4>" = type opaque
declare void @"CastRays"()

declare void @"Shade"()

@"Scene" = external constant %"class.RaytracingAccelerationStructure"
@"Occluders" = external constant [2 x %"class.RaytracingAccelerationStructure"]
@"AlphaMask" = external constant %"class.Texture2D<float>"
@"Image" = external constant %"class.RWStructuredBuffer<float4>"
!dx.version = !{ !0 }
!dx.shaderModel = !{ !1 }
!dx.resources = !{ !10 }
!dx.entryPoints = !{ !11, !24, !29 }
!wgc.spirv.entryPoints = !{ !30, !31 }
!wgc.experimental.tags = !{ !32, !33 }
!llvm.ident = !{ !34 }
!0 = !{ i32 1, i32 9 }
!1 = !{ !"lib", i32 6, i32 9 }
!2 = !{ i32 0, %"class.RaytracingAccelerationStructure"* @"Scene", !"Scene", i32 0, i32 0, i32 1, i32 16, i32 0, null }
!3 = !{ i32 1, [2 x %"class.RaytracingAccelerationStructure"]* @"Occluders", !"Occluders", i32 0, i32 1, i32 2, i32 16, i32 0, null }
!4 = !{ i32 0, i32 9 }
!5 = !{ i32 2, %"class.Texture2D<float>"* @"AlphaMask", !"AlphaMask", i32 0, i32 3, i32 1, i32 2, i32 0, !4 }
!6 = !{ !2, !3, !5 }
!7 = !{ i32 1, i32 16 }
!8 = !{ i32 0, %"class.RWStructuredBuffer<float4>"* @"Image", !"Image", i32 0, i32 4, i32 1, i32 12, i1 false, i1 false, i1 false, !7 }
!9 = !{ !8 }
!10 = !{ !6, !9, null, null }
!11 = !{ null, !"", null, !10, null }
!12 = !{ !"CastRays", i32 0 }
!13 = !{ i32 16, i32 16, i32 1 }
!14 = !{ i32 0, i32 5, i32 2 }
!15 = !{ i32 0, i32 24, i32 1, !14, i32 2, i32 4 }
!16 = !{ i32 1, i32 97, i32 2, !15 }
!17 = !{ !16 }
!18 = !{ i32 0, i32 32, i32 2, i32 4 }
!19 = !{ !"Shade", i32 0 }
!20 = !{ i32 1, i32 6, i32 2, !18, i32 3, i32 64, i32 0, !19 }
!21 = !{ !20 }
!22 = !{ i32 8, i32 8, i32 1 }
!23 = !{ i32 8, i32 15, i32 13, i32 1, i32 15, !12, i32 16, i32 -1, i32 22, !13, i32 20, !17, i32 21, !21, i32 4, !22 }
!24 = !{ void ()* @"CastRays", !"CastRays", null, null, !23 }
!25 = !{ i32 1, i32 33, i32 2, !18 }
!26 = !{ !25 }
!27 = !{ i32 1, i32 1, i32 1 }
!28 = !{ i32 8, i32 15, i32 13, i32 3, i32 15, !19, i32 16, i32 -1, i32 20, !26, i32 4, !27 }
!29 = !{ void ()* @"Shade", !"Shade", null, null, !28 }
!30 = !{ void ()* @"CastRays", !"CastRays" }
!31 = !{ void ()* @"Shade", !"Shade" }
!32 = !{ !"NodeMaxLoopIterations", i32 131072 }
!33 = !{ !"NodeMaxRecordsPerLoopIteration", i32 131073 }
!34 = !{ !"wgc 0.1.0" }
